// V1 verification: the upstream golden bundle, D11's key rule and version gate, one failure per check.
// PROTOCOL §5 (V1 bundle, json-stable-stringify canonical form); DECISIONS D11, D12.
import { describe, expect, it } from 'vitest';
import { canonicalBytesV1 } from '../../canonical/index.ts';
import { encodeBase64 } from '../../encoding/index.ts';
import { hexDigest } from '../../hash/index.ts';
import { protocolMerkleRoot } from '../../merkle/index.ts';
import {
  a,
  backend,
  clone,
  codes,
  flipB64,
  HAS_SHARED_VECTORS,
  type J,
  makeVerifier,
  o,
  readShared,
  V1_GOLDEN,
} from '../test-support.ts';

const golden = (): J => clone(readShared<J>(V1_GOLDEN));
const signer = backend.generateKeyPair('ed25519');
const SIGNER_B64 = encodeBase64(signer.publicKey);
const GOLDEN_KEY = 'L9cW+sKJxJUX5+0v/4flcOUwqw4YlfwItf2z6dnBS18=';

function v1Bytes(value: unknown): Uint8Array {
  const bytes = canonicalBytesV1(value);
  if (!bytes.ok) throw new Error(bytes.error.message);
  return bytes.value;
}

/** Re-signs a (mutated) V1 bundle with a fresh key, recomputing bundle_hash and merkle_root. */
function resign(signed: J): J {
  const bundle = o(signed['bundle']);
  const signature = o(signed['signature']);
  const bytes = v1Bytes(bundle);
  const leaves = a(bundle['audit_entries']).map((e) => hexDigest('sha256', v1Bytes(e)));
  o(signature['signer'])['public_key_b64'] = SIGNER_B64;
  signature['bundle_hash'] = `sha256:${hexDigest('sha256', bytes)}`;
  signature['merkle_root'] = `sha256:${protocolMerkleRoot('sha256', leaves)}`;
  signature['sig_b64'] = encodeBase64(backend.sign('ed25519', signer.secretKey, bytes));
  return signed;
}

const entries = (s: J) => a(o(s['bundle'])['audit_entries']);
const artifact = (s: J, field: string) => o(o(s['bundle'])[field]);

describe.skipIf(!HAS_SHARED_VECTORS)('V1 bundles', () => {
  it('the upstream golden bundle verifies; its RPR never expires and its passport is active, so any clock works', () => {
    for (const now of [new Date('2026-11-22T12:00:00Z'), new Date('2099-01-01T00:00:00Z')]) {
      const response = makeVerifier({ clock: () => now }).verify({ signed_bundle: golden() });
      expect(response).toEqual({
        verified: true,
        version: '1.0',
        checks: {
          schema: 'pass',
          classical_sig: 'pass',
          bundle_hash: 'pass',
          merkle_root: 'pass',
          intent_hash: 'pass',
          hash_chain: 'pass',
          key_validity: 'pass',
          revocation: 'skipped',
          anchor: 'skipped',
          attestation: 'skipped',
        },
      });
    }
  });

  it('verifies the same under both profiles (V1 signatures carry no context) and exposes the golden facts', () => {
    for (const profile of ['proto', 'dcp-ai'] as const) {
      const verifier = makeVerifier({ profile });
      expect(verifier.verify({ signed_bundle: golden() }).verified).toBe(true);
      const analysis = verifier.analyze({ signed_bundle: golden() });
      expect(analysis.bundleHash).toBe(
        'sha256:7a62ce380f4ec90391e2c5e2302501c2d876e5ebbc9d718bf5bd4ca9d0b28af6',
      );
      expect(analysis.agentId).toBe('did:agent:agent123');
      expect(analysis.jurisdiction).toBe('US');
      expect(analysis.rprHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });

  it('D11: a request key equal to the bundle key is fine; a different one fails E303', () => {
    const verifier = makeVerifier();
    expect(verifier.verify({ signed_bundle: golden(), public_key_b64: GOLDEN_KEY }).verified).toBe(true);
    const response = verifier.verify({ signed_bundle: golden(), public_key_b64: SIGNER_B64 });
    expect(response.verified).toBe(false);
    expect(response.checks.classical_sig).toBe('fail');
    expect(codes(response)).toEqual(['PROTO-E303']);
  });

  it("D11: without a signer key in the bundle the request's key is used; with neither, E103", () => {
    const signed = golden();
    delete o(o(signed['signature'])['signer'])['public_key_b64'];
    const verifier = makeVerifier();
    expect(verifier.verify({ signed_bundle: signed, public_key_b64: GOLDEN_KEY }).verified).toBe(true);
    expect(codes(verifier.verify({ signed_bundle: signed, public_key_b64: SIGNER_B64 }))).toEqual([
      'PROTO-E100',
    ]);
    expect(codes(verifier.verify({ signed_bundle: signed }))).toEqual(['PROTO-E103']);
  });

  it('D11: ALLOW_V1_BUNDLES=false or min_accepted_version 2.0 rejects V1 with E003', () => {
    const off = makeVerifier({ allowV1Bundles: false }).verify({ signed_bundle: golden() });
    expect(off).toMatchObject({ verified: false, version: '1.0' });
    expect(off.error_details).toEqual([
      {
        code: 'PROTO-E003',
        check: 'version',
        message: 'V1 bundles are not accepted by this verifier (ALLOW_V1_BUNDLES=false)',
        retryable: false,
      },
    ]);
    const min = makeVerifier({
      policy: { default_mode: 'hybrid_preferred', min_accepted_version: '2.0' },
    }).verify({
      signed_bundle: golden(),
    });
    expect(codes(min)).toEqual(['PROTO-E003']);
    expect(min.errors).toEqual(["V1 bundles are below the policy's min_accepted_version 2.0"]);
  });

  it('the re-signing helper itself yields a verifying bundle (so each case below plants one defect)', () => {
    expect(makeVerifier().verify({ signed_bundle: resign(golden()) }).verified).toBe(true);
  });

  const CASES: ReadonlyArray<readonly [string, (s: J) => J, string, string]> = [
    [
      'schema: an empty audit trail (D7)',
      (s) => {
        o(s['bundle'])['audit_entries'] = [];
        return resignNoRoot(s);
      },
      'schema',
      'PROTO-E001',
    ],
    [
      'classical_sig: a tampered signature',
      (s) => {
        o(s['signature'])['sig_b64'] = flipB64(o(s['signature'])['sig_b64']);
        return s;
      },
      'classical_sig',
      'PROTO-E100',
    ],
    [
      'bundle_hash: a wrong stated hash (the signature does not cover it)',
      (s) => {
        o(s['signature'])['bundle_hash'] = `sha256:${'a'.repeat(64)}`;
        return s;
      },
      'bundle_hash',
      'PROTO-E201',
    ],
    [
      'merkle_root: a wrong stated root',
      (s) => {
        o(s['signature'])['merkle_root'] = `sha256:${'b'.repeat(64)}`;
        return s;
      },
      'merkle_root',
      'PROTO-E202',
    ],
    [
      'intent_hash: the last entry names another intent hash',
      (s) => {
        entries(s)[1]!['intent_hash'] = 'c'.repeat(64);
        return resign(s);
      },
      'intent_hash',
      'PROTO-E204',
    ],
    [
      'hash_chain: the last entry links to the wrong predecessor',
      (s) => {
        entries(s)[1]!['prev_hash'] = 'd'.repeat(64);
        return resign(s);
      },
      'hash_chain',
      'PROTO-E200',
    ],
    [
      'hash_chain: a prefixed (V2-style) prev_hash is not the V1 bare form (D3)',
      (s) => {
        entries(s)[1]!['prev_hash'] = `sha256:${entries(s)[1]!['prev_hash']}`;
        return resign(s);
      },
      'hash_chain',
      'PROTO-E200',
    ],
    [
      'key_validity: passport status revoked',
      (s) => {
        artifact(s, 'agent_passport')['status'] = 'revoked';
        return resign(s);
      },
      'key_validity',
      'PROTO-E300',
    ],
    [
      'key_validity: RPR expired before the verifier clock',
      (s) => {
        artifact(s, 'responsible_principal_record')['expires_at'] = '2026-06-01T00:00:00Z';
        return resign(s);
      },
      'key_validity',
      'PROTO-E304',
    ],
  ];

  it.each(CASES)('%s fails that check alone', (_name, mutate, check, code) => {
    const response = makeVerifier().verify({ signed_bundle: mutate(golden()) });
    expect(response.verified).toBe(false);
    expect(codes(response)).toEqual([code]);
    const failed = Object.entries(response.checks)
      .filter(([, status]) => status === 'fail')
      .map(([name]) => name);
    expect(failed).toEqual([check]);
  });

  it('intent_hash and hash_chain, checked apart, still report their breaks in entry order', () => {
    const signed = golden();
    entries(signed)[0]!['prev_hash'] = 'd'.repeat(64);
    entries(signed)[1]!['intent_hash'] = 'c'.repeat(64);
    const response = makeVerifier().verify({ signed_bundle: resign(signed) });
    // Entry 0's link breaks first, then entry 1's intent; entry 1's link (to the changed entry 0) is counted.
    expect(response.error_details?.map((d) => [d.check, d.code])).toEqual([
      ['hash_chain', 'PROTO-E200'],
      ['intent_hash', 'PROTO-E204'],
      ['hash_chain', 'PROTO-E200'],
    ]);
    expect(response.errors?.at(-1)).toBe('1 more prev_hash chain breaks');
  });

  it('a null merkle_root is allowed: merkle_root is absent and the bundle verifies', () => {
    const signed = golden();
    o(signed['signature'])['merkle_root'] = null;
    const response = makeVerifier().verify({ signed_bundle: signed });
    expect(response.verified).toBe(true);
    expect(response.checks.merkle_root).toBe('absent');
  });

  it('RPR expiry is evaluated at finalize: the same analysis passes before expires_at and fails after', () => {
    const signed = resign(golden());
    artifact(signed, 'responsible_principal_record')['expires_at'] = '2027-01-01T00:00:00Z';
    const verifier = makeVerifier();
    const analysis = verifier.analyze({ signed_bundle: resign(signed) });
    expect(verifier.finalize(analysis, new Date('2026-12-31T23:59:59Z')).verified).toBe(true);
    const late = verifier.finalize(analysis, new Date('2027-01-01T00:00:00Z'));
    expect(late.error_details).toEqual([
      {
        code: 'PROTO-E304',
        check: 'key_validity',
        message: 'Responsible principal record expired at 2027-01-01T00:00:00Z',
        retryable: false,
      },
    ]);
  });

  it('a policy that does not accept ed25519 rejects every V1 signature (E401)', () => {
    const verifier = makeVerifier({
      policy: {
        default_mode: 'hybrid_preferred',
        accepted_algorithms: { signing: ['ml-dsa-65'], hash: ['sha256'] },
      },
    });
    expect(codes(verifier.verify({ signed_bundle: golden() }))).toEqual(['PROTO-E401']);
  });
});

function resignNoRoot(signed: J): J {
  const bundle = o(signed['bundle']);
  const signature = o(signed['signature']);
  const bytes = v1Bytes(bundle);
  o(signature['signer'])['public_key_b64'] = SIGNER_B64;
  signature['bundle_hash'] = `sha256:${hexDigest('sha256', bytes)}`;
  signature['merkle_root'] = null;
  signature['sig_b64'] = encodeBase64(backend.sign('ed25519', signer.secretKey, bytes));
  return signed;
}
