// The key directory learns from every body /verify accepts: CBOR as well as JSON, with the verification cache
// on as well as off. The bindings come from the worker, so the main thread keeps no copy of the body. Issue 15
// item 1, issue 14 item 1.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSignedBundle, createNativeBackend, generateBundleKeys, keyEntry } from '@proto/core';
import { encodeCbor } from '@proto/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecordsConfig, mountRecords } from '../src/records/plugin.ts';
import { keyOnceItAnswers, startApp } from '../src/test-support.ts';

type Json = Record<string, unknown>;

describe('key directory fed by POST /verify', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'proto-key-feed-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  const withService = async (
    env: Record<string, string>,
    body: (url: string) => Promise<void>,
  ): Promise<void> => {
    const mounted = await mountRecords(
      loadRecordsConfig({ DATA_DIR: await mkdtemp(join(dataDir, 'store-')) }),
    );
    const running = await startApp({ VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0', ...env }, [mounted]);
    try {
      await body(running.url);
    } finally {
      await running.close();
    }
  };

  it('with the cache off, a CBOR body binds the passport and principal keys like a JSON one', async () => {
    await withService({ VERIFICATION_CACHE_MAX_ENTRIES: '0' }, async (url) => {
      const built = buildSignedBundle();
      const bundle = built.signed_bundle['bundle'] as Json;
      const agentId = ((bundle['agent_passport'] as Json)['payload'] as Json)['agent_id'];
      const humanId = ((bundle['responsible_principal_record'] as Json)['payload'] as Json)['human_id'];
      expect((await fetch(`${url}/v2/keys/${built.keys.agent.classical.kid}`)).status).toBe(404);

      const answer = await fetch(`${url}/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/cbor' },
        body: encodeCbor({ signed_bundle: built.signed_bundle }),
      });
      expect(((await answer.json()) as Json)['verified']).toBe(true);

      const agentKey = await keyOnceItAnswers(url, built.keys.agent.classical.kid);
      expect(agentKey.status).toBe(200);
      expect(await agentKey.json()).toMatchObject({
        bindings: [{ subject: agentId, role: 'passport', evidence: built.bundleHash }],
      });
      const principalKey = await keyOnceItAnswers(url, built.keys.principal.classical.kid);
      expect(principalKey.status).toBe(200);
      const subjects = ((await principalKey.json()) as { bindings: { subject: string }[] }).bindings.map(
        (b) => b.subject,
      );
      expect(subjects.sort()).toEqual([agentId, humanId].sort());
    });
  });

  it('with the verification cache on, JSON and CBOR bodies bind their keys; a cache hit answers as before', async () => {
    await withService({ VERIFICATION_CACHE_MAX_ENTRIES: '100' }, async (url) => {
      for (const format of ['json', 'cbor'] as const) {
        const built = buildSignedBundle();
        const request = { signed_bundle: built.signed_bundle };
        const send = () =>
          fetch(`${url}/verify`, {
            method: 'POST',
            headers: { 'content-type': `application/${format}` },
            body: format === 'json' ? JSON.stringify(request) : encodeCbor(request),
          });
        const first = await send();
        expect(first.headers.get('x-verification-cache')).toBe('miss');
        expect(((await first.json()) as Json)['verified']).toBe(true);
        const second = await send();
        expect(second.headers.get('x-verification-cache')).toBe('hit');
        expect(((await second.json()) as Json)['verified']).toBe(true);
        expect((await keyOnceItAnswers(url, built.keys.agent.classical.kid)).status, format).toBe(200);
      }
    });
  });

  it('a bundle that fails verification binds nothing', async () => {
    await withService({ VERIFICATION_CACHE_MAX_ENTRIES: '0' }, async (url) => {
      const built = buildSignedBundle();
      const bundle = structuredClone(built.signed_bundle) as Json;
      const passport = (bundle['bundle'] as Json)['agent_passport'] as Json;
      (passport['payload'] as Json)['agent_id'] = 'agent:forged-owner';
      const answer = await fetch(`${url}/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/cbor' },
        body: encodeCbor({ signed_bundle: bundle }),
      });
      expect(((await answer.json()) as Json)['verified']).toBe(false);
      await new Promise((r) => setTimeout(r, 300));
      expect((await fetch(`${url}/v2/keys/${built.keys.agent.classical.kid}`)).status).toBe(404);
    });
  });

  // P123: a worker hashes a whole bundle for the directory only for passport keys it has not seen verified;
  // a later bundle with the same passport is known by the first one's hash, a new passport by its own.
  for (const cacheEntries of ['0', '100']) {
    it(`binds a new passport's key with its own bundle's hash, the same passport's with the first (cache ${cacheEntries})`, async () => {
      await withService({ VERIFICATION_CACHE_MAX_ENTRIES: cacheEntries }, async (url) => {
        const backend = createNativeBackend();
        const keys = { agent: generateBundleKeys(backend), principal: generateBundleKeys(backend) };
        const spare = generateBundleKeys(backend, { pq: false });
        const start = Date.now() - 30 * 60_000;
        const at = (minutes: number, extra?: typeof spare) => {
          const now = new Date(start + minutes * 60_000);
          return buildSignedBundle({
            keys,
            now,
            hooks: {
              payloads: (payloads) => {
                if (extra === undefined) return;
                const passport = payloads.agent_passport as Json;
                (passport['keys'] as Json[]).push({ ...keyEntry(extra.classical, now.toISOString(), null) });
              },
            },
          });
        };
        // Each session's passport names its nonce; what the directory applies (keys, time, signer) is alike.
        const passportOf = (built: ReturnType<typeof at>) => {
          const payload = ((built.signed_bundle['bundle'] as Json)['agent_passport'] as Json)[
            'payload'
          ] as Json;
          return { keys: payload['keys'], created_at: payload['created_at'] };
        };
        const first = at(0);
        const same = at(0);
        const rotated = at(1, spare);
        expect(passportOf(same)).toEqual(passportOf(first));
        expect(same.bundleHash).not.toBe(first.bundleHash);
        const verify = async (built: ReturnType<typeof at>) => {
          const answer = await fetch(`${url}/verify`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ signed_bundle: built.signed_bundle }),
          });
          expect(((await answer.json()) as Json)['verified']).toBe(true);
        };
        const evidenceOf = async (kid: string) => {
          const answer = await keyOnceItAnswers(url, kid);
          expect(answer.status).toBe(200);
          return ((await answer.json()) as { bindings: { evidence: string }[] }).bindings.map(
            (b) => b.evidence,
          );
        };

        await verify(first);
        expect(await evidenceOf(keys.agent.classical.kid)).toEqual([first.bundleHash]);
        await verify(same);
        await verify(rotated);
        expect(await evidenceOf(spare.classical.kid)).toEqual([rotated.bundleHash]);
        expect(await evidenceOf(keys.agent.classical.kid)).toEqual([first.bundleHash]);
      });
    });
  }
});
