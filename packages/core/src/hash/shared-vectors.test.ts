// Shared upstream hash vectors: interop payload hashes, golden digests of fixed strings, the V1 example's chain values.
// PROTOCOL §2.1, §5.2 (V1 golden values), §11; DECISIONS D3.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { canonicalizeV1 } from '../canonical/index.ts';
import { hashCanonicalV1, hashCanonicalV2, hexDigest, parsePrefixedHash } from './index.ts';

const REPO_ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
const SHARED = path.resolve(REPO_ROOT, '../shared/vectors');
const INTEROP = path.join(SHARED, 'tests/interop/v2/interop_vectors.json');
const GOLDEN = path.join(SHARED, 'tests/conformance/v2/golden_vectors.json');
const EXAMPLES = path.join(SHARED, 'tests/conformance/examples');

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

type HashPair = { readonly sha256: string; readonly sha3_256: string };

describe.skipIf(!existsSync(INTEROP))('interop_vectors.json#payload_hashes', () => {
  const interop = existsSync(INTEROP)
    ? (readJson(INTEROP) as {
        canonicalization: Record<string, { input: unknown }>;
        payload_hashes: Record<string, HashPair>;
      })
    : undefined;

  it.each(['agent_passport', 'intent', 'audit_event'])(
    '%s: SHA-256 and SHA3-256 of the dcp-jcs-v1 bytes',
    (name) => {
      const input = interop?.canonicalization[name]?.input;
      const expected = interop?.payload_hashes[name] as HashPair;
      expect(hashCanonicalV2('sha256', input)).toEqual({ ok: true, value: `sha256:${expected.sha256}` });
      expect(hashCanonicalV2('sha3-256', input)).toEqual({
        ok: true,
        value: `sha3-256:${expected.sha3_256}`,
      });
    },
  );
});

interface Golden {
  hash_vectors: Record<string, { input_utf8: string; expected_hex: string }>;
  v1_bundle_verification: {
    signed_bundle_file: string;
    expected_bundle_hash: string;
    intent_hash: string;
    audit_entry_hashes: string[];
    prev_hash_chain: string[];
  };
  dual_hash_vectors: {
    intent_canonical: { canonical_json: string; sha256: string; sha3_256: string };
    audit_entry_dual_hashes: HashPair[];
    raw_dual_hash: { input_utf8: string; sha256: string; sha3_256: string };
  };
}

describe.skipIf(!existsSync(GOLDEN))('golden_vectors.json hashes', () => {
  const golden = existsSync(GOLDEN) ? (readJson(GOLDEN) as Golden) : undefined;

  it.each(Object.entries(golden?.hash_vectors ?? {}))('hash_vectors.%s', (name, vector) => {
    const alg = name.startsWith('sha3_256') ? 'sha3-256' : 'sha256';
    expect(hexDigest(alg, vector.input_utf8)).toBe(vector.expected_hex);
  });

  it('raw_dual_hash', () => {
    const raw = golden?.dual_hash_vectors.raw_dual_hash;
    expect(hexDigest('sha256', raw?.input_utf8 ?? '')).toBe(raw?.sha256);
    expect(hexDigest('sha3-256', raw?.input_utf8 ?? '')).toBe(raw?.sha3_256);
  });

  it('intent_canonical: both digests of the V1 canonical intent', () => {
    const intent = golden?.dual_hash_vectors.intent_canonical;
    expect(hexDigest('sha256', intent?.canonical_json ?? '')).toBe(intent?.sha256);
    expect(hexDigest('sha3-256', intent?.canonical_json ?? '')).toBe(intent?.sha3_256);
  });

  const signedFile = path.join(EXAMPLES, 'citizenship_bundle.signed.json');
  describe.skipIf(!existsSync(signedFile))('V1 bundle golden values (citizenship_bundle.signed.json)', () => {
    const signed = existsSync(signedFile)
      ? (readJson(signedFile) as {
          bundle: { intent: unknown; audit_entries: Array<Record<string, unknown>> };
        })
      : undefined;
    const v1 = golden?.v1_bundle_verification;

    it('the golden file points at this signed bundle', () => {
      expect(path.resolve(path.dirname(GOLDEN), v1?.signed_bundle_file ?? '')).toBe(signedFile);
    });

    it('bundle_hash = sha256: + SHA-256 of the V1 canonical bundle', () => {
      const hash = hashCanonicalV1(signed?.bundle);
      expect(hash.ok && `sha256:${hash.value}`).toBe(v1?.expected_bundle_hash);
      expect(parsePrefixedHash(v1?.expected_bundle_hash, 'sha256')).toBeDefined();
    });

    it('intent_hash is bare SHA-256 of the V1 canonical intent, and every entry carries it', () => {
      expect(hashCanonicalV1(signed?.bundle.intent)).toEqual({ ok: true, value: v1?.intent_hash });
      for (const entry of signed?.bundle.audit_entries ?? [])
        expect(entry['intent_hash']).toBe(v1?.intent_hash);
    });

    it('audit entry leaf hashes in both families', () => {
      const entries = signed?.bundle.audit_entries ?? [];
      expect(entries.map((e) => hashCanonicalV1(e))).toEqual(
        (v1?.audit_entry_hashes ?? []).map((value) => ({ ok: true, value })),
      );
      const sha3 = entries.map((e) => {
        const text = canonicalizeV1(e);
        return text.ok ? hexDigest('sha3-256', text.value) : undefined;
      });
      expect(sha3).toEqual(golden?.dual_hash_vectors.audit_entry_dual_hashes.map((pair) => pair.sha3_256));
      expect(v1?.audit_entry_hashes).toEqual(
        golden?.dual_hash_vectors.audit_entry_dual_hashes.map((p) => p.sha256),
      );
    });

    it('prev_hash chain: GENESIS, then bare SHA-256 of the previous entry (the third value is the next link)', () => {
      const entries = signed?.bundle.audit_entries ?? [];
      const chain = ['GENESIS', ...entries.map((e) => (hashCanonicalV1(e) as { value: string }).value)];
      expect(chain).toEqual(v1?.prev_hash_chain);
      entries.forEach((entry, i) => {
        expect(entry['prev_hash']).toBe(chain[i]);
      });
    });
  });
});
