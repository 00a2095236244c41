// Tests for SHA-256 / SHA3-256 digests, the prefixed and bare hex forms, and canonical-JSON hashes.
// PROTOCOL §2.1 (formats and goldens), DECISIONS D3.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { toHex, utf8Encode } from '../encoding/index.ts';
import {
  digest,
  HASH_ALGS,
  hashCanonicalV1,
  hashCanonicalV2,
  hexDigest,
  isBareHex64,
  parsePrefixedHash,
  prefixedHash,
} from './index.ts';

const SHA256_HELLO = '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824';
const SHA3_HELLO = '3338be694f50c5f338814986cdf0686453a888b84f424d792af4b9202398f392';
const SHA256_EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const SHA3_EMPTY = 'a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a';
// Keccak-256("") as Ethereum uses it; SHA3-256 must not produce this.
const KECCAK_EMPTY = 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';

describe('digest', () => {
  it('lists both families, primary first', () => {
    expect(HASH_ALGS).toEqual(['sha256', 'sha3-256']);
  });

  it('matches the PROTOCOL §2.1 goldens for strings and bytes', () => {
    expect(hexDigest('sha256', 'hello')).toBe(SHA256_HELLO);
    expect(hexDigest('sha3-256', 'hello')).toBe(SHA3_HELLO);
    expect(hexDigest('sha256', '')).toBe(SHA256_EMPTY);
    expect(hexDigest('sha3-256', new Uint8Array(0))).toBe(SHA3_EMPTY);
    expect(toHex(digest('sha256', utf8Encode('hello')))).toBe(SHA256_HELLO);
  });

  it('is FIPS 202 SHA3-256, not Keccak-256', () => {
    expect(hexDigest('sha3-256', '')).not.toBe(KECCAK_EMPTY);
  });

  it('hashes strings as UTF-8', () => {
    expect(hexDigest('sha256', 'é🌍')).toBe(
      createHash('sha256').update(Buffer.from('é🌍', 'utf8')).digest('hex'),
    );
  });

  it('returns 32 bytes as a plain Uint8Array', () => {
    const bytes = digest('sha3-256', 'x');
    expect(bytes.length).toBe(32);
    expect(Object.getPrototypeOf(bytes)).toBe(Uint8Array.prototype);
  });

  it('throws a TypeError for an algorithm outside HashAlg (only reachable by bypassing the types)', () => {
    expect(() => digest('md5' as never, 'x')).toThrow(TypeError);
    expect(() => hexDigest('md5' as never, 'x')).toThrow(TypeError);
  });

  it('agrees with node:crypto createHash on every byte value, length and subarray offset', () => {
    const source = Uint8Array.from({ length: 300 }, (_, i) => (i * 151 + 7) & 0xff);
    for (const alg of HASH_ALGS) {
      for (const [start, end] of [
        [0, 0],
        [0, 1],
        [3, 67],
        [1, 300],
        [0, 256],
      ] as const) {
        const data = source.subarray(start, end);
        const expected = createHash(alg).update(data).digest('hex');
        expect(hexDigest(alg, data)).toBe(expected);
        expect(toHex(digest(alg, data))).toBe(expected);
      }
    }
  });

  it('hashes a lone surrogate as U+FFFD, the bytes utf8Encode gives', () => {
    for (const text of ['a\uD800b', '\uDC00', 'x\uDBFF']) {
      expect(hexDigest('sha256', text)).toBe(hexDigest('sha256', utf8Encode(text)));
      expect(digest('sha3-256', text)).toEqual(digest('sha3-256', utf8Encode(text)));
    }
  });
});

describe('prefixed and bare forms', () => {
  it('prefixes with the algorithm name', () => {
    expect(prefixedHash('sha256', SHA256_HELLO)).toBe(`sha256:${SHA256_HELLO}`);
    expect(prefixedHash('sha3-256', SHA3_HELLO)).toBe(`sha3-256:${SHA3_HELLO}`);
  });

  it('parses both families and checks the expected one', () => {
    expect(parsePrefixedHash(`sha256:${SHA256_HELLO}`)).toEqual({ alg: 'sha256', hex: SHA256_HELLO });
    expect(parsePrefixedHash(`sha3-256:${SHA3_HELLO}`)).toEqual({ alg: 'sha3-256', hex: SHA3_HELLO });
    expect(parsePrefixedHash(`sha256:${SHA256_HELLO}`, 'sha256')).toEqual({
      alg: 'sha256',
      hex: SHA256_HELLO,
    });
    expect(parsePrefixedHash(`sha256:${SHA256_HELLO}`, 'sha3-256')).toBeUndefined();
    expect(parsePrefixedHash(`sha3-256:${SHA3_HELLO}`, 'sha256')).toBeUndefined();
  });

  it.each([
    ['bare hex', SHA256_HELLO],
    ['uppercase hex', `sha256:${SHA256_HELLO.toUpperCase()}`],
    ['uppercase prefix', `SHA256:${SHA256_HELLO}`],
    ['63 hex digits', `sha256:${SHA256_HELLO.slice(1)}`],
    ['65 hex digits', `sha256:${SHA256_HELLO}0`],
    ['unknown family', `sha512:${SHA256_HELLO}`],
    ['sha3 spelled without the dash', `sha3_256:${SHA3_HELLO}`],
    ['leading space', ` sha256:${SHA256_HELLO}`],
    ['trailing newline', `sha256:${SHA256_HELLO}\n`],
    ['GENESIS', 'GENESIS'],
    ['empty', ''],
    ['a number', 42],
    ['null', null],
    ['an object', { alg: 'sha256', hex: SHA256_HELLO }],
  ])('parsePrefixedHash rejects %s', (_label, value) => {
    expect(parsePrefixedHash(value)).toBeUndefined();
  });

  it('recognises bare 64-digit lowercase hex only', () => {
    expect(isBareHex64(SHA256_HELLO)).toBe(true);
    expect(isBareHex64(SHA256_HELLO.toUpperCase())).toBe(false);
    expect(isBareHex64(`sha256:${SHA256_HELLO}`)).toBe(false);
    expect(isBareHex64(SHA256_HELLO.slice(2))).toBe(false);
    expect(isBareHex64(`${SHA256_HELLO}\n`)).toBe(false);
    expect(isBareHex64('GENESIS')).toBe(false);
    expect(isBareHex64(undefined)).toBe(false);
  });
});

describe('hashes of canonical JSON', () => {
  it('hashCanonicalV2 is the prefixed digest of the dcp-jcs-v1 bytes, in either family', () => {
    const value = { b: [1, 2], a: 'x' };
    const text = '{"a":"x","b":[1,2]}';
    expect(hashCanonicalV2('sha256', value)).toEqual({
      ok: true,
      value: `sha256:${hexDigest('sha256', text)}`,
    });
    expect(hashCanonicalV2('sha3-256', value)).toEqual({
      ok: true,
      value: `sha3-256:${hexDigest('sha3-256', text)}`,
    });
  });

  it('hashCanonicalV2 reports the canonicalisation error', () => {
    const result = hashCanonicalV2('sha256', { metrics: { rate: 0.5 } });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('BUNDLE_SCHEMA_INVALID');
      expect(result.error.message).toBe(
        '$.metrics.rate: non-integer number 0.5 is not allowed by dcp-jcs-v1',
      );
    }
  });

  it('hashCanonicalV1 is the bare SHA-256 of the V1 bytes, floats included', () => {
    expect(hashCanonicalV1({ score: 0.21, id: 'i' })).toEqual({
      ok: true,
      value: hexDigest('sha256', '{"id":"i","score":0.21}'),
    });
    expect(hashCanonicalV1({ x: Number.NaN }).ok).toBe(false);
  });
});
