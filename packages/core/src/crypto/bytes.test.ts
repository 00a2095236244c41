// Tests for the private byte helpers: strict base64 (one accepted text per byte string) and hex.
// PROTOCOL §4.1 (standard base64 with padding; lenient decoders accept re-encoded variants), D8.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBase64Strict, encodeBase64, fromHexStrict, toHex } from './bytes.ts';

describe('strict base64', () => {
  it('round-trips every length and matches the standard encoding', () => {
    for (let length = 0; length <= 70; length++) {
      const bytes = new Uint8Array(randomBytes(length));
      const text = encodeBase64(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64'));
      expect(decodeBase64Strict(text)).toEqual(bytes);
    }
  });

  it.each([
    ['missing padding', 'SGVsbG8'],
    ['URL-safe alphabet', 'ab-_'],
    ['URL-safe without padding', 'SGVsbG8_'],
    ['leading space', ' SGVsbG8='],
    ['trailing newline', 'SGVsbG8=\n'],
    ['line break inside', 'SGVs\nbG8='],
    ['padding in the middle', 'SG=sbG8='],
    ['three padding characters', 'S==='],
    ['only padding', '===='],
    ['non-canonical last character (unused bits set)', 'SGVsbG9='],
    ['non-canonical with two pads', 'QR=='],
    ['non-ASCII character', 'SGVsbG8é'],
    ['length not a multiple of 4', 'SGVsbG8=='],
  ])('rejects %s', (_name, text) => {
    expect(decodeBase64Strict(text)).toBeUndefined();
  });

  it('accepts exactly the canonical text that Node would also accept in lenient variants', () => {
    // Node decodes all of these to "Hello"; only the first is the strict form.
    expect(Buffer.from('SGVsbG9=', 'base64').toString()).toBe('Hello');
    expect(decodeBase64Strict('SGVsbG8=')).toEqual(new TextEncoder().encode('Hello'));
    expect(decodeBase64Strict('')).toEqual(new Uint8Array(0));
  });

  it('rejects values that are not strings', () => {
    for (const value of [null, undefined, 42, ['QQ=='], { b64: 'QQ==' }]) {
      expect(decodeBase64Strict(value)).toBeUndefined();
    }
  });
});

describe('lowercase hex', () => {
  it('encodes lowercase and decodes only lowercase, even-length hex', () => {
    expect(toHex(Uint8Array.of(0, 1, 0xab, 0xff))).toBe('0001abff');
    expect(fromHexStrict('0001abff')).toEqual(Uint8Array.of(0, 1, 0xab, 0xff));
    expect(fromHexStrict('0001ABFF')).toBeUndefined();
    expect(fromHexStrict('abc')).toBeUndefined();
    expect(fromHexStrict('0x00')).toBeUndefined();
    expect(fromHexStrict('')).toEqual(new Uint8Array(0));
  });
});
