// Jurisdiction attestation against the running service: issuance, offline verification with the published
// keys, expiry, wrong rpr_hash, untrusted key, revoked agents and key rotation. DECISIONS D21, D22.

import {
  type IssuedAttestation,
  PROFILES,
  signAttestation,
  type TrustedKey,
  verifyAttestation,
  verifyRevocationList,
} from '@proto/core';
import { parseAttestationTrustedKeys } from '@proto/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  ISSUER,
  JURISDICTION,
  type RunningService,
  revoke,
  startService,
  tempDir,
} from './test-support.ts';

const RPR = `sha256:${'5a'.repeat(32)}`;
const KEY_1 = Buffer.alloc(32, 7).toString('base64');
const KEY_2 = Buffer.alloc(32, 8).toString('base64');

interface KeysDocument {
  issuer: string;
  jurisdiction: string;
  keys: TrustedKey[];
}

async function attest(service: RunningService, agentId: string, rprHash = RPR): Promise<IssuedAttestation> {
  const res = await call(service, 'POST', '/attest', { agent_id: agentId, rpr_hash: rprHash });
  expect(res.status).toBe(200);
  return res.json['attestation'] as unknown as IssuedAttestation;
}

async function keysDocument(service: RunningService): Promise<KeysDocument> {
  return (await (
    await fetch(`${service.url}/.well-known/proto-attestation-keys.json`)
  ).json()) as KeysDocument;
}

describe('attestation service', () => {
  let service: RunningService;
  const dir = tempDir('attest');

  beforeAll(async () => {
    service = await startService({ dataDir: dir.dir, env: { ATTESTATION_VALIDITY_S: '3600' } });
  });
  afterAll(async () => {
    await service?.close();
    dir.remove();
  });

  it('issues D21 attestations that verify offline with the published keys and the bundle rpr_hash', async () => {
    const attestation = await attest(service, 'agent:attested-1');
    expect(Object.keys(attestation).sort()).toEqual(
      ['agent_id', 'attested_at', 'expires_at', 'issuer', 'jurisdiction', 'rpr_hash', 'signature'].sort(),
    );
    expect(attestation).toMatchObject({
      issuer: ISSUER,
      jurisdiction: JURISDICTION,
      rpr_hash: RPR,
      agent_id: 'agent:attested-1',
    });
    expect(Date.parse(String(attestation.expires_at)) - Date.parse(attestation.attested_at)).toBe(3_600_000);
    const doc = await keysDocument(service);
    expect(doc).toMatchObject({ issuer: ISSUER, jurisdiction: JURISDICTION });
    expect(doc.keys).toEqual([
      {
        key_id: expect.stringMatching(/^[0-9a-f]{32}$/),
        public_key_b64: attestation.signature.public_key_b64,
        valid_from: expect.any(String),
        valid_until: null,
      },
    ]);
    const trusted =
      parseAttestationTrustedKeys(JSON.stringify({ [JURISDICTION]: doc.keys }))[JURISDICTION] ?? [];
    const result = verifyAttestation(attestation, trusted, {
      now: new Date(),
      expectedRprHash: RPR,
      expectedJurisdiction: JURISDICTION,
    });
    expect(result.ok).toBe(true);
  });

  it('is refused after expires_at, for another rpr_hash, and under an untrusted key', async () => {
    const attestation = await attest(service, 'agent:attested-2');
    const { keys } = await keysDocument(service);
    const expired = verifyAttestation(attestation, keys, {
      now: new Date(Date.parse(String(attestation.expires_at)) + 1),
    });
    expect(expired.ok === false && expired.error.reason).toBe('expired');
    const wrongRpr = verifyAttestation(attestation, keys, {
      now: new Date(),
      expectedRprHash: `sha256:${'00'.repeat(32)}`,
    });
    expect(wrongRpr.ok === false && wrongRpr.error.reason).toBe('rpr_mismatch');
    const stranger = verifyAttestation(attestation, [Buffer.alloc(32, 1).toString('base64')], {
      now: new Date(),
    });
    expect(stranger.ok === false && stranger.error.reason).toBe('untrusted_key');
  });

  it('does not attest a revoked agent (403, E300) and checks its input', async () => {
    await revoke(service, 'agent:revoked-att');
    const refused = await call(service, 'POST', '/attest', { agent_id: 'agent:revoked-att', rpr_hash: RPR });
    expect(refused.status).toBe(403);
    expect(refused.json['error']).toMatchObject({ code: 'PROTO-E300', retryable: false });
    const badHash = await call(service, 'POST', '/attest', {
      agent_id: 'agent:x-0001',
      rpr_hash: 'sha256:XYZ',
    });
    expect([badHash.status, (badHash.json['error'] as Record<string, unknown>)['code']]).toEqual([
      400,
      'PROTO-E001',
    ]);
    const badId = await call(service, 'POST', '/attest', { agent_id: 'bad id', rpr_hash: RPR });
    expect([badId.status, (badId.json['error'] as Record<string, unknown>)['code']]).toEqual([
      400,
      'INVALID_ID',
    ]);
  });
});

describe('attestation key rotation', () => {
  it('publishes previous keys with their windows: a retired key’s attestations verify until its retirement, not after', async () => {
    const dir = tempDir('rotation');
    const first = await startService({ dataDir: dir.dir, env: { ATTESTATION_SIGNING_KEY: KEY_1 } });
    const old = await attest(first, 'agent:rotating-1');
    const oldKey = old.signature.public_key_b64;
    await first.close();

    const retiredAt = new Date().toISOString();
    const previous = [{ public_key_b64: oldKey, valid_from: '2020-01-01T00:00:00Z', valid_until: retiredAt }];
    const second = await startService({
      dataDir: dir.dir,
      env: { ATTESTATION_SIGNING_KEY: KEY_2, ATTESTATION_PREVIOUS_KEYS: JSON.stringify(previous) },
    });
    try {
      const fresh = await attest(second, 'agent:rotating-1');
      expect(fresh.signature.public_key_b64).not.toBe(oldKey);
      const { keys } = await keysDocument(second);
      expect(keys).toHaveLength(2);
      expect(keys[1]).toMatchObject({
        public_key_b64: oldKey,
        valid_until: retiredAt,
        key_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      });
      expect(new Set(keys.map((k) => k.key_id)).size).toBe(2);
      const now = new Date(Date.parse(retiredAt) + 1);
      expect(verifyAttestation(old, keys, { now: new Date(retiredAt) }).ok).toBe(true);
      // Issue 12 item 7: the issuer key must be valid when the attestation is verified, not only when attested.
      const afterRetirement = verifyAttestation(old, keys, { now });
      expect(afterRetirement.ok === false && afterRetirement.error.reason).toBe('key_retired');
      expect(verifyAttestation(fresh, keys, { now }).ok).toBe(true);
      // The retired key cannot vouch for anything attested after its window.
      const secret = Buffer.concat([Buffer.alloc(32, 7), Buffer.from(oldKey, 'base64')]);
      const forged = signAttestation(
        { ...old, attested_at: now.toISOString(), expires_at: null },
        new Uint8Array(secret),
      );
      expect(forged.ok).toBe(true);
      const result = forged.ok ? verifyAttestation(forged.value, keys, { now }) : undefined;
      expect(result?.ok === false && result.error.reason).toBe('untrusted_key');
    } finally {
      await second.close();
      dir.remove();
    }
  });
});

describe('dcp-ai profile', () => {
  it('serves the well-known files under the dcp names and signs under the DCP-AI contexts (D1)', async () => {
    const dir = tempDir('dcp');
    const service = await startService({ dataDir: dir.dir, env: { PROTOCOL_PROFILE: 'dcp-ai' } });
    try {
      expect((await fetch(`${service.url}/.well-known/proto-revocations.json`)).status).toBe(404);
      const list = await (await fetch(`${service.url}/.well-known/dcp-revocations.json`)).json();
      const key = (list as { signature: { public_key_b64: string } }).signature.public_key_b64;
      expect(verifyRevocationList(list, [key], { now: new Date(), profile: PROFILES['dcp-ai'] }).ok).toBe(
        true,
      );
      expect(verifyRevocationList(list, [key], { now: new Date() }).ok).toBe(false);
      const keys = await (await fetch(`${service.url}/.well-known/dcp-attestation-keys.json`)).json();
      expect((keys as KeysDocument).keys).toHaveLength(1);
    } finally {
      await service.close();
      dir.remove();
    }
  });
});
