// Test helpers of the revocation module: deterministic Ed25519 keys from a seed, sample lists and attestations.
// Supports the tests of DECISIONS D20/D21; not part of the public API.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { encodeBase64 } from '../encoding/index.ts';
import type { UnsignedAttestation, UnsignedRevocationList } from './types.ts';

export interface TestKey {
  readonly secretKey: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly publicKeyB64: string;
}

/** An Ed25519 key pair in the SDK layout (seed ‖ public key) from a one-byte seed fill. */
export function testKey(fill: number): TestKey {
  const seed = new Uint8Array(32).fill(fill);
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  const jwk = createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })).export({
    format: 'jwk',
  });
  const publicKey = new Uint8Array(Buffer.from(jwk.x as string, 'base64url'));
  const secretKey = new Uint8Array(64);
  secretKey.set(seed, 0);
  secretKey.set(publicKey, 32);
  return { secretKey, publicKey, publicKeyB64: encodeBase64(publicKey) };
}

export const T0 = new Date('2026-03-01T12:00:00.000Z');

export function at(offsetSeconds: number, base: Date = T0): Date {
  return new Date(base.getTime() + offsetSeconds * 1000);
}

export function sampleList(overrides: Partial<UnsignedRevocationList> = {}): UnsignedRevocationList {
  return {
    issuer: 'did:web:revocation.example.fr',
    jurisdiction: 'FR',
    updated_at: T0.toISOString(),
    list_number: 7,
    next_update: at(86_400).toISOString(),
    entries: [
      {
        agent_id: 'agent:revoked-1',
        revoked_at: at(-3600).toISOString(),
        reason_hash: `sha256:${'ab'.repeat(32)}`,
      },
    ],
    ...overrides,
  };
}

export function sampleAttestation(overrides: Partial<UnsignedAttestation> = {}): UnsignedAttestation {
  return {
    issuer: 'did:web:attest.example.fr',
    jurisdiction: 'FR',
    rpr_hash: `sha256:${'cd'.repeat(32)}`,
    agent_id: 'agent:attested-1',
    attested_at: T0.toISOString(),
    expires_at: at(30 * 86_400).toISOString(),
    ...overrides,
  };
}
