// Issue 12 row j: an attestation binds to the bundle. POST /verify with attestations issued by the real revocation
// service (jurisdiction FR) or signed with core's helpers for the bundle's jurisdiction (US). DECISIONS D21.
import {
  encodeBase64,
  selectCryptoBackend,
  signAttestation,
  type TrustedKey,
  type UnsignedAttestation,
} from '@proto/core';
import {
  call,
  type RunningService,
  JURISDICTION as SERVICE_JURISDICTION,
  startService,
  tempDir,
} from '@proto/revocation/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

const BUNDLE_JURISDICTION = 'US'; // the builder writes RPRs for US
const DAY = 86_400_000;

let revocation: RunningService;
let revocationDir: ReturnType<typeof tempDir>;
let verifier: RunningApp; // ATTESTATION_MAX_AGE_DAYS default (30)
let strict: RunningApp; // ATTESTATION_MAX_AGE_DAYS=2

const current = selectCryptoBackend().generateKeyPair('ed25519');
const retired = selectCryptoBackend().generateKeyPair('ed25519');
const now = Date.now();
/** Trusted for US until yesterday: the operator rotated it out. */
const retiredEntry: TrustedKey = {
  key_id: 'us-2025',
  public_key_b64: encodeBase64(retired.publicKey),
  valid_from: new Date(now - 400 * DAY).toISOString(),
  valid_until: new Date(now - DAY).toISOString(),
};

const sample = sampleBundle({});
const rprHash = (sample.signed_bundle['bundle'] as { manifest: { rpr_hash: string } }).manifest.rpr_hash;
const base: UnsignedAttestation = {
  issuer: 'did:web:attest.example.us',
  jurisdiction: BUNDLE_JURISDICTION,
  rpr_hash: rprHash,
  agent_id: sample.agentId!,
  attested_at: new Date(now - 60_000).toISOString(),
  expires_at: new Date(now + 3_600_000).toISOString(),
};

function sign(fields: Partial<UnsignedAttestation>, secretKey = current.secretKey) {
  const signed = signAttestation({ ...base, ...fields }, secretKey);
  if (!signed.ok) throw new Error(signed.error.message);
  return signed.value;
}

const verify = (app: RunningApp, attestation: unknown) =>
  postVerify(app.url, { signed_bundle: sample.signed_bundle, jurisdiction_attestation: attestation });

beforeAll(async () => {
  revocationDir = tempDir('extio-attestation');
  revocation = await startService({ dataDir: revocationDir.dir, env: { LOG_LEVEL: 'warn' }, timer: false });
  const keysDoc = await call(revocation, 'GET', '/.well-known/proto-attestation-keys.json', undefined, null);
  const common = {
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    ATTESTATION_TRUSTED_KEYS: JSON.stringify({
      [SERVICE_JURISDICTION]: keysDoc.json['keys'],
      [BUNDLE_JURISDICTION]: [encodeBase64(current.publicKey), retiredEntry],
    }),
  };
  [verifier, strict] = await Promise.all([
    startApp(common),
    startApp({ ...common, ATTESTATION_MAX_AGE_DAYS: '2' }),
  ]);
});

afterAll(async () => {
  await Promise.all([verifier, strict].map((app) => app?.close()));
  await revocation?.close();
  revocationDir?.remove();
});

function expectRefused(json: Record<string, unknown>, code: string, message: RegExp) {
  expect(json, JSON.stringify(json)).toMatchObject({
    verified: false,
    checks: { attestation: 'fail', classical_sig: 'pass' },
  });
  expect(json['error_details']).toEqual([
    { code, check: 'attestation', message: expect.stringMatching(message), retryable: false },
  ]);
}

describe('issue 12 row j: an attestation binds to the bundle', () => {
  it('passes a current key’s attestation, and one without expires_at inside the maximum age (not over-strict)', async () => {
    expect((await verify(verifier, sign({}))).json).toMatchObject({
      verified: true,
      checks: { attestation: 'pass' },
    });
    const open = sign({ attested_at: new Date(now - 29 * DAY).toISOString(), expires_at: null });
    const { json } = await verify(verifier, open);
    expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { attestation: 'pass' } });
    // Inside the clock skew (5 min): a slightly fast issuer clock is tolerated.
    const skewed = sign({ attested_at: new Date(Date.now() + 120_000).toISOString() });
    expect((await verify(verifier, skewed)).json).toMatchObject({ verified: true });
  });

  it('refuses an attestation the real FR service issued for this US bundle’s rpr_hash: jurisdiction mismatch, E304', async () => {
    const issued = await call(revocation, 'POST', '/attest', { rpr_hash: rprHash, agent_id: sample.agentId });
    expect(issued.status).toBe(200);
    const attestation = issued.json['attestation'] as Record<string, unknown>;
    expect(attestation).toMatchObject({ jurisdiction: SERVICE_JURISDICTION, rpr_hash: rprHash });
    const { json } = await verify(verifier, attestation);
    expectRefused(json, 'PROTO-E304', /jurisdiction FR is not the bundle's US/);
  });

  it('refuses a retired key’s attestation with a backdated attested_at and expires_at null: E301', async () => {
    const backdated = sign(
      { attested_at: new Date(now - 5 * DAY).toISOString(), expires_at: null },
      retired.secretKey,
    );
    const { json } = await verify(verifier, backdated);
    expectRefused(json, 'PROTO-E301', /retired/);
  });

  it('refuses a retired key’s attestation even with a future expires_at: the key must be valid now', async () => {
    const backdated = sign(
      {
        attested_at: new Date(now - 5 * DAY).toISOString(),
        expires_at: new Date(now + 300 * DAY).toISOString(),
      },
      retired.secretKey,
    );
    expectRefused((await verify(verifier, backdated)).json, 'PROTO-E301', /retired/);
  });

  it('refuses an attested_at in the future beyond the clock skew: E104', async () => {
    const future = sign({
      attested_at: new Date(now + 3_600_000).toISOString(),
      expires_at: new Date(now + 7_200_000).toISOString(),
    });
    expectRefused((await verify(verifier, future)).json, 'PROTO-E104', /in the future/);
  });

  it('refuses an attestation without expires_at older than ATTESTATION_MAX_AGE_DAYS (default 30, and as configured): E104', async () => {
    const old = sign({ attested_at: new Date(now - 31 * DAY).toISOString(), expires_at: null });
    expectRefused((await verify(verifier, old)).json, 'PROTO-E104', /older than the 30-day maximum age/);
    const threeDays = sign({ attested_at: new Date(now - 3 * DAY).toISOString(), expires_at: null });
    expect((await verify(verifier, threeDays)).json).toMatchObject({ verified: true });
    expectRefused((await verify(strict, threeDays)).json, 'PROTO-E104', /older than the 2-day maximum age/);
  });
});
