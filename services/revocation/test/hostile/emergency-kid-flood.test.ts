// P484: a bundle registers at most 16 kids, as the operator's PUT /emergency-tokens may. The kids a registration takes
// are those the passport lists and that signed something in the bundle (each PQ checkpoint can be signed by another
// passport key), with no bound: one registration of a self-made bundle took 82 kids, and its one emergency revocation
// then wrote 83 entries into the signed list every verifier fetches. Under EMERGENCY_REGISTRATION=bundle a stranger
// can do that for ids of its own, five revocations a minute per address, until verifiers refuse the list for its
// size. Real revocation service over HTTP, real SQLite.
import {
  buildSignedBundle,
  canonicalBytesV2,
  compositeSign,
  contextString,
  generateBundleKeys,
  keyEntry,
  PROFILES,
  selectCryptoBackend,
} from '@proto/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  currentList,
  newEmergencySecret,
  postWithoutToken,
  type RunningService,
  startService,
  useEmergencySecret,
} from '../../src/test-support.ts';

const JURISDICTION = 'US'; // the builder writes RPRs for US
const MAX_KIDS = 16;

/** A maximum-tier bundle (one PQ checkpoint per entry) whose checkpoint `i` is signed by the i-th extra key set. */
function bundleWithCheckpointSigners(signers: number, token: string) {
  const backend = selectCryptoBackend();
  const extra = Array.from({ length: signers }, () => generateBundleKeys(backend, { pq: true }));
  const context = contextString(PROFILES.proto, 'AuditEvent');
  return buildSignedBundle({
    tier: 'maximum',
    entries: signers,
    emergencyRevocationToken: token,
    hooks: {
      payloads: (payloads) => {
        const keys = payloads.agent_passport['keys'] as Record<string, unknown>[];
        const at = String(payloads.agent_passport['created_at']);
        for (const set of extra) {
          if (set.pq === undefined) throw new Error('key set without its ML-DSA half');
          keys.push(keyEntry(set.classical, at, null), keyEntry(set.pq, at, null));
        }
      },
      checkpoints: (checkpoints) => {
        checkpoints.forEach((checkpoint, i) => {
          const set = extra[i];
          if (set?.pq === undefined) throw new Error('a checkpoint without its signer');
          const { composite_sig: _old, ...body } = checkpoint;
          const bytes = canonicalBytesV2(body);
          if (!bytes.ok) throw new Error(bytes.error.message);
          const signed = compositeSign(
            backend,
            {
              classical: { alg: 'ed25519', kid: set.classical.kid, secretKey: set.classical.secretKey },
              pq: { alg: 'ml-dsa-65', kid: set.pq.kid, secretKey: set.pq.secretKey },
            },
            context,
            bytes.value,
          );
          checkpoint['composite_sig'] = JSON.parse(JSON.stringify(signed)) as unknown;
        });
      },
    },
  });
}

describe('P484: a bundle registers at most 16 kids', () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startService({ env: { JURISDICTION, EMERGENCY_REGISTRATION: 'bundle' }, timer: false });
  });
  afterAll(() => service.close());

  it('a self-made bundle whose checkpoints are signed by 40 passport key sets registers nothing and revokes nothing', async () => {
    const secret = newEmergencySecret();
    const built = bundleWithCheckpointSigners(40, secret.token);
    const agentId = String(
      (built.signed_bundle['bundle'] as { agent_passport: { payload: { agent_id: string } } }).agent_passport
        .payload.agent_id,
    );
    const before = ((await currentList(service))['entries'] as unknown[]).length;
    const registered = await postWithoutToken(service, '/emergency-tokens', {
      signed_bundle: built.signed_bundle,
    });
    expect(registered.status, JSON.stringify(registered.json).slice(0, 300)).toBe(400);
    expect(JSON.stringify(registered.json)).toMatch(new RegExp(`${MAX_KIDS}`));
    const used = await useEmergencySecret(service, agentId, secret.hex);
    expect(used.status).toBe(403);
    expect(((await currentList(service))['entries'] as unknown[]).length).toBe(before);
  }, 120_000);

  it("an agent's ordinary bundle (its own two kids) still registers and revokes", async () => {
    const secret = newEmergencySecret();
    const built = buildSignedBundle({ emergencyRevocationToken: secret.token });
    const registered = await postWithoutToken(service, '/emergency-tokens', {
      signed_bundle: built.signed_bundle,
    });
    expect(registered.status, JSON.stringify(registered.json)).toBe(201);
    expect(registered.json['kids']).toHaveLength(2);
    const agentId = String(registered.json['agent_id']);
    expect((await useEmergencySecret(service, agentId, secret.hex)).status).toBe(200);
  });
});
