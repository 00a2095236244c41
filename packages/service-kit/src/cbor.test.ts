// The CBOR codec: upstream's canonical encoding vector and the strict decoder's refusals.
// PROTOCOL §8.2 (VERIFIED example, decoder rules, `_b64` byte-string convention).
import { describe, expect, it } from 'vitest';
import { CborError, decodeCbor, encodeCbor } from './cbor.ts';

describe('encodeCbor', () => {
  it('reproduces the upstream encoding of PROTOCOL §8.2 byte for byte', () => {
    expect(encodeCbor({ aa: 2, b: 1, z: [true, null, -1] }).toString('hex')).toBe(
      'a3616201617a83f5f62062616102',
    );
  });

  it('uses the smallest integer head, including beyond 32 bits, and refuses floats', () => {
    expect(encodeCbor(2 ** 40).toString('hex')).toBe('1b0000010000000000');
    expect(encodeCbor(-(2 ** 40)).toString('hex')).toBe('3b000000ffffffffff');
    expect(encodeCbor(23).toString('hex')).toBe('17');
    expect(() => encodeCbor({ x: 1.5 })).toThrow(CborError);
  });

  it('carries sig_b64 / public_key_b64 as raw bytes and restores them on decode', () => {
    const value = { signer: { public_key_b64: 'AQID' }, sig_b64: 'BAUG', note: 'not base64!' };
    const bytes = encodeCbor(value);
    expect(bytes.includes(Buffer.from('sig_b64'))).toBe(false);
    expect(decodeCbor(bytes)).toEqual(value);
  });
});

describe('decodeCbor (strict)', () => {
  it.each([
    ['c11a514b67b0', /tags/],
    ['f97e00', /floating-point/],
    ['fb3ff8000000000000', /floating-point/],
    ['f7', /undefined/],
    ['f0', /simple value/],
    ['9f01ff', /indefinite/],
    ['a10102', /not a text string/],
    ['a2616101616102', /duplicate map key/],
    // Issue 12: no reading without a single canonical form (these were already refused, kept as proof).
    ['a16161a2616201616202', /duplicate map key "b"/],
    ['a2637369674101677369675f6236346441513d3d', /appears twice after byte-string renaming/],
    ['f97c00', /floating-point/],
    ['f9fc00', /floating-point/],
    ['fb7ff0000000000000', /floating-point/],
    ['63eda080', /UTF-8/],
    ['a163eda08001', /UTF-8/],
    ['0000', /trailing bytes/],
    ['1bffffffffffffffff', /above 2\^53/],
    ['62c328', /UTF-8/],
    ['a1695f5f70726f746f5f5f01', /__proto__/],
    ['83', /truncated/],
    ['', /empty/],
  ])('rejects %s', (hex, reason) => {
    expect(() => decodeCbor(Buffer.from(hex, 'hex'))).toThrow(reason);
  });

  it('rejects nesting deeper than 128', () => {
    expect(() => decodeCbor(Buffer.from(`${'81'.repeat(200)}01`, 'hex'))).toThrow(/nesting/);
    expect(decodeCbor(Buffer.from(`${'81'.repeat(100)}01`, 'hex'))).toBeDefined();
  });

  it('round-trips plain JSON values', () => {
    const value = { a: [1, -2, 'x', null, false, { é: 'ü' }], n: Number.MAX_SAFE_INTEGER, empty: {} };
    expect(decodeCbor(encodeCbor(value))).toEqual(value);
  });
});
