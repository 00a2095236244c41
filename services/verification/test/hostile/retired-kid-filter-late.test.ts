// P472 over HTTP: a retirement another replica writes with a clock five minutes behind (or, the same to a reader,
// commits long after it was dated) is warned about by a running verification service at its next refresh of the
// filter of retired kids, not only after a restart. The service is real, its records on a store of each dialect; the
// lagging replica is a second store on the same database whose clock is five minutes slow.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BundleKeySet,
  buildSignedBundle,
  createNativeBackend,
  generateBundleKeys,
  keyEntry,
} from '@proto/core';
import { createStoreTarget, dialectsUnderTest, kid, passport, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadVerificationConfig } from '../../src/config.ts';
import { mountRecords } from '../../src/records/plugin.ts';
import type { Json } from '../../src/records/test-support.ts';
import { type RunningApp, startApp } from '../../src/test-support.ts';
import { storeEnvOf } from './verifier-with-records.ts';

const backend = createNativeBackend();
const MINUTE = 60_000;

describe.each(dialectsUnderTest())('a retirement dated five minutes back, on %s (P472)', (dialect) => {
  let target: StoreTarget;
  let dataDir: string;
  let app: RunningApp | undefined;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'retired-kid-late');
    dataDir = await mkdtemp(join(tmpdir(), 'proto-retired-kid-late-'));
  });
  afterAll(async () => {
    await app?.close();
    await target?.cleanup();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  const agent = generateBundleKeys(backend);
  const rotated = generateBundleKeys(backend);
  const principal = generateBundleKeys(backend);
  const start = Date.now() - 30 * MINUTE;
  const entries = (set: BundleKeySet): Json[] =>
    [set.classical, ...(set.pq === undefined ? [] : [set.pq])].map((pair) =>
      keyEntry(pair, new Date(start).toISOString(), null),
    );
  const bundleAt = (minutes: number, signer: BundleKeySet, listed: BundleKeySet[], agentId?: string) =>
    buildSignedBundle({
      keys: { agent: signer, principal },
      now: new Date(start + minutes * MINUTE),
      hooks: {
        payloads: (payloads) => {
          const passport = payloads.agent_passport as Json;
          passport['keys'] = listed.flatMap(entries);
          if (agentId !== undefined) {
            passport['agent_id'] = agentId;
            (payloads.intent as Json)['agent_id'] = agentId;
          }
        },
      },
    });
  const verify = async (built: ReturnType<typeof buildSignedBundle>) => {
    const res = await fetch(`${app?.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signed_bundle: built.signed_bundle }),
    });
    const json = (await res.json()) as Json;
    expect(json['verified'], JSON.stringify(json)).toBe(true);
    return ((json['warnings'] as string[] | undefined) ?? []).filter((w) => w.includes('retired'));
  };

  it('is warned about at the next refresh', async () => {
    // Some replica on time retired a key of another agent before the service started: its filter has read it.
    // (On SQLite the service's file is verification.sqlite under DATA_DIR: the stores here open that one.)
    const onTime = await target.open({ name: 'verification' });
    await onTime.keys.applyPassport(
      passport('agent:late-other', '2026-01-01T00:00:00Z', 'sha256:o1', [kid('1'), kid('2')]),
    );
    await onTime.keys.applyPassport(
      passport('agent:late-other', '2026-01-02T00:00:00Z', 'sha256:o2', [kid('1')]),
    );

    const env = { ...storeEnvOf(target, dataDir), RETIRED_KEY_REFRESH_SECONDS: '1' };
    const mounted = await mountRecords(loadVerificationConfig({ ...env, HOST: '127.0.0.1', PORT: '0' }));
    app = await startApp({ ...env, VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0' }, [mounted]);

    // The agent's first passport, through the service, binds both key sets.
    const first = bundleAt(0, agent, [agent, rotated]);
    const id = (((first.signed_bundle['bundle'] as Json)['agent_passport'] as Json)['payload'] as Json)[
      'agent_id'
    ] as string;
    expect(await verify(first)).toEqual([]);
    for (let n = 0; n < 100; n++) {
      const res = await fetch(`${app.url}/v2/keys/${rotated.classical.kid}`);
      await res.arrayBuffer();
      if (res.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    // A replica whose clock is five minutes slow applies a newer passport of the agent (signed by its live key)
    // that no longer lists the second key set: retired, dated five minutes back.
    const lagging = await target.open({
      name: 'verification',
      clock: () => new Date(Date.now() - 5 * MINUTE),
    });
    const liveKids = [agent.classical.kid, ...(agent.pq === undefined ? [] : [agent.pq.kid])];
    const outcome = await lagging.keys.applyPassport(
      passport(
        id,
        new Date(Date.now() - 10 * MINUTE).toISOString(),
        'sha256:late',
        liveKids,
        [],
        agent.classical.kid,
      ),
    );
    expect(outcome.retired, JSON.stringify(outcome)).toBeGreaterThan(0);

    // The service's refresh runs every second: within ten, a bundle signed by the retired key is warned about.
    const deadline = Date.now() + 10_000;
    let warnings: string[] = [];
    for (let n = 0; warnings.length === 0 && Date.now() < deadline; n += 1) {
      if (n > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      warnings = await verify(bundleAt(6 + n / 1000, rotated, [agent, rotated], id));
    }
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).toContain(rotated.classical.kid);
  });
});
