// POST /verify against the real revocation service on loopback: E300 for a revoked agent (cache on, off, and
// after a cached pass), tampered and rolled-back lists by tier, attestations. DECISIONS D12, D20, D21.
import { createServer, type Server } from 'node:http';
import { encodeBase64, selectCryptoBackend, signAttestation, type UnsignedAttestation } from '@proto/core';
import {
  call,
  currentList,
  type RunningService,
  revoke,
  startService,
  tempDir,
} from '@proto/revocation/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from './test-support.ts';

const JURISDICTION = 'US'; // the builder writes RPRs for US

let revocation: RunningService;
let revocationDir: ReturnType<typeof tempDir>;
let listKey: string;
let serviceAttestationKeys: unknown[];
/** Serves a copy of the real list under /tampered.json (entries changed) and whatever `served` holds under /list.json. */
let lists: Server;
let listsUrl: string;
let served = '';
const attestationPair = selectCryptoBackend().generateKeyPair('ed25519');
const strangerPair = selectCryptoBackend().generateKeyPair('ed25519');

let cached: RunningApp; // cache on
let uncached: RunningApp; // VERIFICATION_CACHE_MAX_ENTRIES=0
let tampered: RunningApp;
let rollback: RunningApp;

const revocationSources = (url: string) => JSON.stringify({ [JURISDICTION]: { url, keys: [listKey] } });

function checksOf(json: Record<string, unknown>): Record<string, string> {
  return json['checks'] as Record<string, string>;
}

beforeAll(async () => {
  revocationDir = tempDir('verification');
  // max-age 0: every check revalidates (a 304 most of the time), so a revocation is seen at the next request.
  revocation = await startService({
    dataDir: revocationDir.dir,
    env: { JURISDICTION, LIST_MAX_AGE_S: '0', LOG_LEVEL: 'warn' },
    timer: false,
  });
  const health = await call(revocation, 'GET', '/health', undefined, null);
  listKey = health.json['revocation_public_key_b64'] as string;
  const keysDoc = await call(revocation, 'GET', '/.well-known/proto-attestation-keys.json', undefined, null);
  serviceAttestationKeys = keysDoc.json['keys'] as unknown[];

  lists = createServer((req, res) => {
    void (async () => {
      if (req.url === '/tampered.json') {
        const list = await currentList(revocation);
        // Authentic bytes with one change: the issuer's signature no longer covers them.
        const body = JSON.stringify({ ...list, entries: [], list_number: list.list_number + 7 });
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=0' });
        res.end(body);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=0' });
      res.end(served);
    })();
  });
  await new Promise<void>((resolve) => lists.listen(0, '127.0.0.1', resolve));
  listsUrl = `http://127.0.0.1:${(lists.address() as { port: number }).port}`;

  const common = {
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    // Load shedding off: on a busy test machine event-loop lag would answer 503 (E702) instead.
    MAX_EVENT_LOOP_DELAY_MS: '0',
    ATTESTATION_TRUSTED_KEYS: JSON.stringify({
      [JURISDICTION]: [encodeBase64(attestationPair.publicKey), ...serviceAttestationKeys],
    }),
  };
  [cached, uncached, tampered, rollback] = await Promise.all([
    startApp({ ...common, REVOCATION_SOURCES: revocationSources(revocation.listUrl) }),
    startApp({
      ...common,
      REVOCATION_SOURCES: revocationSources(revocation.listUrl),
      VERIFICATION_CACHE_MAX_ENTRIES: '0',
    }),
    startApp({ ...common, REVOCATION_SOURCES: revocationSources(`${listsUrl}/tampered.json`) }),
    startApp({ ...common, REVOCATION_SOURCES: revocationSources(`${listsUrl}/list.json`) }),
  ]);
});

afterAll(async () => {
  await Promise.all([cached, uncached, tampered, rollback].map((app) => app?.close()));
  await new Promise<void>((resolve) => (lists ? lists.close(() => resolve()) : resolve()));
  await revocation?.close();
  revocationDir?.remove();
});

describe('revocation (D20) against the real revocation service', () => {
  it('fails a verified, cached bundle with E300 once its agent is revoked: the cached analysis is re-checked, then evicted', async () => {
    const sample = sampleBundle({});
    const request = { signed_bundle: sample.signed_bundle };

    const first = await postVerify(cached.url, request);
    expect(first.json, JSON.stringify(first.json)).toMatchObject({
      verified: true,
      resolved_tier: 'standard',
    });
    expect(checksOf(first.json)['revocation']).toBe('pass');
    expect(first.headers.get('x-verification-cache')).toBe('miss');
    const second = await postVerify(cached.url, request);
    expect(second.headers.get('x-verification-cache')).toBe('hit');
    expect(second.json['verified']).toBe(true);

    expect((await revoke(revocation, sample.agentId!)).status).toBe(201);

    // Served from the cached analysis, but revocation runs on every request: never a cached verdict.
    const revoked = await postVerify(cached.url, request);
    expect(revoked.headers.get('x-verification-cache')).toBe('hit');
    expect(revoked.json, JSON.stringify(revoked.json)).toMatchObject({ verified: false });
    expect(checksOf(revoked.json)['revocation']).toBe('fail');
    expect(revoked.json['error_details']).toEqual([
      {
        code: 'PROTO-E300',
        check: 'revocation',
        message: expect.stringContaining(sample.agentId!),
        retryable: false,
      },
    ]);
    expect(revoked.json['errors']).toEqual([expect.stringContaining('revoked')]);
    // The newly seen revocation evicted the agent's cached analyses (invalidateByAgent).
    const again = await postVerify(cached.url, request);
    expect(again.headers.get('x-verification-cache')).toBe('miss');
    expect(checksOf(again.json)['revocation']).toBe('fail');
  });

  it('fails a bundle of an already revoked agent with E300, with the cache on and off', async () => {
    const sample = sampleBundle({});
    expect((await revoke(revocation, sample.agentId!)).status).toBe(201);
    for (const app of [cached, uncached]) {
      const { status, json } = await postVerify(app.url, { signed_bundle: sample.signed_bundle });
      expect(status).toBe(200);
      expect(json['verified']).toBe(false);
      expect(checksOf(json)).toMatchObject({ revocation: 'fail', classical_sig: 'pass', hash_chain: 'pass' });
      expect(json['error_details']).toEqual([
        expect.objectContaining({ code: 'PROTO-E300', check: 'revocation' }),
      ]);
    }
    const live = sampleBundle({});
    const ok = await postVerify(uncached.url, { signed_bundle: live.signed_bundle });
    expect(ok.json, JSON.stringify(ok.json)).toMatchObject({ verified: true });
    expect(checksOf(ok.json)['revocation']).toBe('pass');
  });

  it('a tampered list fails closed at elevated (E701, retryable) and is a warning at standard', async () => {
    const elevated = sampleBundle({ tier: 'elevated' });
    const standard = sampleBundle({});
    const high = await postVerify(tampered.url, { signed_bundle: elevated.signed_bundle });
    expect(high.json, JSON.stringify(high.json)).toMatchObject({
      verified: false,
      resolved_tier: 'elevated',
    });
    expect(checksOf(high.json)['revocation']).toBe('fail');
    expect(high.json['error_details']).toEqual([
      expect.objectContaining({ code: 'PROTO-E701', check: 'revocation', retryable: true }),
    ]);
    const low = await postVerify(tampered.url, { signed_bundle: standard.signed_bundle });
    expect(low.json, JSON.stringify(low.json)).toMatchObject({ verified: true, resolved_tier: 'standard' });
    expect(checksOf(low.json)['revocation']).toBe('skipped');
    expect(low.json['warnings']).toEqual(
      expect.arrayContaining([expect.stringMatching(/revocation status not established.*signature/i)]),
    );
  });

  it('refuses a list_number lower than one already seen, and keeps the revocations it proved', async () => {
    const victim = sampleBundle({});
    const older = JSON.stringify(await currentList(revocation));
    await revoke(revocation, victim.agentId!);
    served = JSON.stringify(await currentList(revocation));
    const live = sampleBundle({});
    const accepted = await postVerify(rollback.url, { signed_bundle: live.signed_bundle });
    expect(checksOf(accepted.json)['revocation']).toBe('pass');

    served = older; // authentic and correctly signed, but a rollback
    const rolledBack = await postVerify(rollback.url, { signed_bundle: live.signed_bundle });
    expect(rolledBack.json['verified']).toBe(true);
    expect(checksOf(rolledBack.json)['revocation']).toBe('skipped');
    expect(rolledBack.json['warnings']).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /revocation status not established: US: revocation list number \d+ is lower than/,
        ),
      ]),
    );
    const elevated = await postVerify(rollback.url, {
      signed_bundle: sampleBundle({ tier: 'elevated' }).signed_bundle,
    });
    expect(elevated.json['error_details']).toEqual([
      expect.objectContaining({ code: 'PROTO-E701', check: 'revocation', retryable: true }),
    ]);
    const stillRevoked = await postVerify(rollback.url, { signed_bundle: victim.signed_bundle });
    expect(checksOf(stillRevoked.json)['revocation']).toBe('fail');
    expect(stillRevoked.json['error_details']).toEqual([expect.objectContaining({ code: 'PROTO-E300' })]);
  });
});

describe('jurisdiction attestation (D21)', () => {
  const sample = sampleBundle({});
  const manifest = (sample.signed_bundle['bundle'] as { manifest: { rpr_hash: string } }).manifest;
  const now = Date.now();
  const base: UnsignedAttestation = {
    issuer: 'did:web:attest.example.us',
    jurisdiction: JURISDICTION,
    rpr_hash: manifest.rpr_hash,
    agent_id: sample.agentId!,
    attested_at: new Date(now - 60_000).toISOString(),
    expires_at: new Date(now + 3_600_000).toISOString(),
  };
  const sign = (fields: Partial<UnsignedAttestation>, secretKey = attestationPair.secretKey) => {
    const signed = signAttestation({ ...base, ...fields }, secretKey);
    if (!signed.ok) throw new Error(signed.error.message);
    return signed.value;
  };
  const verify = (attestation?: unknown) =>
    postVerify(cached.url, {
      signed_bundle: sample.signed_bundle,
      ...(attestation === undefined ? {} : { jurisdiction_attestation: attestation }),
    });

  it('passes an attestation signed by a trusted issuer key for the bundle’s rpr_hash, on a miss and on a hit', async () => {
    const absent = await verify();
    expect(checksOf(absent.json)['attestation']).toBe('skipped');
    const first = await verify(sign({}));
    expect(first.json, JSON.stringify(first.json)).toMatchObject({ verified: true });
    expect(checksOf(first.json)['attestation']).toBe('pass');
    // The cache key is the exact bytes, attestation included (P235): the same request again is a hit, and
    // the attestation is judged anew on it.
    expect(first.headers.get('x-verification-cache')).toBe('miss');
    const again = await verify(sign({}));
    expect(again.headers.get('x-verification-cache')).toBe('hit');
    expect(checksOf(again.json)['attestation']).toBe('pass');
  });

  it('passes an attestation issued by the real service’s POST /attest', async () => {
    const issued = await call(revocation, 'POST', '/attest', {
      rpr_hash: manifest.rpr_hash,
      agent_id: sample.agentId,
    });
    expect(issued.status).toBe(200);
    const { json } = await verify(issued.json['attestation']);
    expect(json, JSON.stringify(json)).toMatchObject({ verified: true });
    expect(checksOf(json)['attestation']).toBe('pass');
  });

  it.each([
    ['another rpr_hash', () => sign({ rpr_hash: `sha256:${'ab'.repeat(32)}` }), 'PROTO-E304', /rpr_hash/],
    ['an untrusted key', () => sign({}, strangerPair.secretKey), 'PROTO-E100', /key/i],
    [
      'an expired attestation',
      () =>
        sign({
          attested_at: new Date(now - 7_200_000).toISOString(),
          expires_at: new Date(now - 3_600_000).toISOString(),
        }),
      'PROTO-E104',
      /expired/,
    ],
    ['a tampered field', () => ({ ...sign({}), issuer: 'did:web:someone.else' }), 'PROTO-E100', /signature/i],
  ])('fails %s', async (_what, make, code, message) => {
    const { status, json } = await verify(make());
    expect(status).toBe(200);
    expect(json['verified']).toBe(false);
    expect(checksOf(json)).toMatchObject({ attestation: 'fail', classical_sig: 'pass', revocation: 'pass' });
    expect(json['error_details']).toEqual([
      { code, check: 'attestation', message: expect.stringMatching(message), retryable: false },
    ]);
  });
});
