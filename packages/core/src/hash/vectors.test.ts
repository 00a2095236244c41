// Our own hash vectors (packages/core/test-vectors/hash-vectors.json): checked on every run, rewritten from our code
// with UPDATE_VECTORS=1. PROTOCOL §2.1, DECISIONS D3.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HASH_ALGS, type HashAlg, hashCanonicalV1, hashCanonicalV2, hexDigest } from './index.ts';

const REPO_ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
const FILE = path.join(REPO_ROOT, 'packages/core/test-vectors/hash-vectors.json');
const UPDATE = process.env['UPDATE_VECTORS'] === '1';

interface DigestVector {
  readonly name: string;
  readonly input_utf8: string;
  readonly sha256: string;
  readonly 'sha3-256': string;
}

interface CanonicalHashVector {
  readonly name: string;
  readonly input_json: string;
  /** Prefixed hashCanonicalV2 values, or undefined when dcp-jcs-v1 refuses the input. */
  readonly v2?: { readonly sha256: string; readonly 'sha3-256': string };
  /** Bare SHA-256 of the V1 canonical bytes. */
  readonly v1: string;
}

interface HashVectorFile {
  readonly description: string;
  readonly digests: DigestVector[];
  readonly canonical: CanonicalHashVector[];
}

const DIGEST_INPUTS: Array<[string, string]> = [
  ['hello', 'hello'],
  ['empty', ''],
  ['abc', 'abc'],
  ['utf8_non_ascii', 'é🌍'],
  ['conformance_payload', 'DCP-AI conformance test payload'],
  ['prefixed_hash_text', 'sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824'],
];

const CANONICAL_INPUTS: Array<[string, string]> = [
  ['empty_object', '{}'],
  ['sorted_keys', '{"z": 1, "a": 2, "m": 3}'],
  ['integer_from_float_literal', '{"n": 1.0, "list": [1e2, -0]}'],
  ['unicode', '{"greeting": "hello \\"world\\"", "emoji": "🌍", "é": "e"}'],
  ['v1_float_only', '{"risk_score": 0.21, "decision": "approve"}'],
];

function digests(input: string): { sha256: string; 'sha3-256': string } {
  return { sha256: hexDigest('sha256', input), 'sha3-256': hexDigest('sha3-256', input) };
}

function generate(): HashVectorFile {
  return {
    description:
      'Hash vectors of this project. digests: bare lowercase hex of the UTF-8 input. canonical: v2 = hashCanonicalV2 (prefixed `<alg>:<hex>` of the dcp-jcs-v1 bytes; absent when dcp-jcs-v1 refuses the input), v1 = bare SHA-256 hex of the V1 canonical bytes. `input_json` is parsed with JSON.parse first.',
    digests: DIGEST_INPUTS.map(([name, input]) => ({ name, input_utf8: input, ...digests(input) })),
    canonical: CANONICAL_INPUTS.map(([name, inputJson]) => {
      const value: unknown = JSON.parse(inputJson);
      const sha256 = hashCanonicalV2('sha256', value);
      const sha3 = hashCanonicalV2('sha3-256', value);
      const v1 = hashCanonicalV1(value);
      if (!v1.ok) throw new Error(`V1 refused ${name}`);
      return {
        name,
        input_json: inputJson,
        ...(sha256.ok && sha3.ok ? { v2: { sha256: sha256.value, 'sha3-256': sha3.value } } : {}),
        v1: v1.value,
      };
    }),
  };
}

function writeVectors(): void {
  describe('hash vectors (UPDATE_VECTORS=1)', () => {
    it('writes packages/core/test-vectors/hash-vectors.json', () => {
      writeFileSync(FILE, `${JSON.stringify(generate(), null, 2)}\n`);
      expect(existsSync(FILE)).toBe(true);
    });
  });
}

function checkVectors(): void {
  describe('hash vectors (packages/core/test-vectors/hash-vectors.json)', () => {
    const stored: HashVectorFile = existsSync(FILE)
      ? (JSON.parse(readFileSync(FILE, 'utf8')) as HashVectorFile)
      : { description: '', digests: [], canonical: [] };

    it('holds the cases the generator defines', () => {
      expect(existsSync(FILE), `${FILE} is missing: run with UPDATE_VECTORS=1`).toBe(true);
      const fresh = generate();
      expect(stored.digests.map((v) => v.name)).toEqual(fresh.digests.map((v) => v.name));
      expect(stored.canonical.map((v) => v.name)).toEqual(fresh.canonical.map((v) => v.name));
    });

    it('includes the SHA-256 / SHA3-256 goldens of "hello" and ""', () => {
      const byName = new Map(stored.digests.map((v) => [v.name, v]));
      expect(byName.get('hello')?.sha256).toBe(
        '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
      );
      expect(byName.get('hello')?.['sha3-256']).toBe(
        '3338be694f50c5f338814986cdf0686453a888b84f424d792af4b9202398f392',
      );
      expect(byName.get('empty')?.sha256).toBe(
        'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      );
      expect(byName.get('empty')?.['sha3-256']).toBe(
        'a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a',
      );
    });

    it.each(stored.digests.map((v) => [v.name, v] as const))('digest %s', (_name, vector) => {
      for (const alg of HASH_ALGS) {
        expect(hexDigest(alg, vector.input_utf8)).toBe(vector[alg]);
        expect(createHash(alg).update(vector.input_utf8, 'utf8').digest('hex')).toBe(vector[alg]);
      }
    });

    it.each(stored.canonical.map((v) => [v.name, v] as const))('canonical hash %s', (_name, vector) => {
      const value: unknown = JSON.parse(vector.input_json);
      for (const alg of HASH_ALGS) {
        const result = hashCanonicalV2(alg as HashAlg, value);
        if (vector.v2 === undefined) expect(result.ok).toBe(false);
        else expect(result).toEqual({ ok: true, value: vector.v2[alg] });
      }
      expect(hashCanonicalV1(value)).toEqual({ ok: true, value: vector.v1 });
    });
  });
}

if (UPDATE) writeVectors();
else checkVectors();
