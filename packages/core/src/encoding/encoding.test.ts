// Tests for strict Base64, lowercase hex and the byte helpers.
// PROTOCOL §4.1 (padded standard Base64), §2.1 (lowercase hex), DECISIONS D3 and D8.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64StrictShared } from './base64.ts';
import {
  bytesEqual,
  concatBytes,
  decodeBase64Strict,
  encodeBase64,
  fromHex,
  toHex,
  utf8Encode,
} from './index.ts';

const bytes = (...values: number[]): Uint8Array => new Uint8Array(values);

// The reference for strict Base64 is the rule spelled out: alphabet, whole quanta, padding only at the end,
// and zero trailing bits (re-encoding gives the text back).
const GRAMMAR = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const reference = (text: string) =>
  GRAMMAR.test(text) && Buffer.from(text, 'base64').toString('base64') === text
    ? new Uint8Array(Buffer.from(text, 'base64'))
    : undefined;

/** Bytes, their Base64 text, and that text with up to two characters inserted somewhere. */
const mangledBase64 = fc
  .tuple(fc.uint8Array({ maxLength: 80 }), fc.nat(), fc.string({ maxLength: 2 }))
  .map(([data, at, insert]) => {
    const text = encodeBase64(data);
    const i = at % (text.length + 1);
    return { data, text, mangled: text.slice(0, i) + insert + text.slice(i) };
  });

describe('encodeBase64', () => {
  it('encodes the RFC 4648 §10 test vectors with padding', () => {
    const cases: Array<[string, string]> = [
      ['', ''],
      ['f', 'Zg=='],
      ['fo', 'Zm8='],
      ['foo', 'Zm9v'],
      ['foob', 'Zm9vYg=='],
      ['fooba', 'Zm9vYmE='],
      ['foobar', 'Zm9vYmFy'],
    ];
    for (const [plain, encoded] of cases) {
      expect(encodeBase64(utf8Encode(plain))).toBe(encoded);
      expect(decodeBase64Strict(encoded)).toEqual(utf8Encode(plain));
    }
  });

  it('uses the standard alphabet (+ and /), not the URL-safe one', () => {
    expect(encodeBase64(bytes(0xfb, 0xff, 0xbf))).toBe('+/+/');
  });

  it('encodes only the viewed bytes of a subarray', () => {
    const whole = bytes(1, 2, 3, 4, 5);
    expect(encodeBase64(whole.subarray(1, 4))).toBe(encodeBase64(bytes(2, 3, 4)));
  });

  it('round-trips random byte strings of every length up to 64', () => {
    for (let length = 0; length <= 64; length++) {
      const data = new Uint8Array(randomBytes(length));
      const text = encodeBase64(data);
      expect(text.length % 4).toBe(0);
      expect(decodeBase64Strict(text)).toEqual(data);
    }
  });
});

describe('decodeBase64Strict', () => {
  it('decodes a real Ed25519 public key from the V1 golden bundle to 32 bytes', () => {
    const key = decodeBase64Strict('L9cW+sKJxJUX5+0v/4flcOUwqw4YlfwItf2z6dnBS18=');
    expect(key?.length).toBe(32);
    expect(decodeBase64Strict(encodeBase64(key as Uint8Array))).toEqual(key);
  });

  it('returns a plain Uint8Array, not a Buffer', () => {
    expect(Object.getPrototypeOf(decodeBase64Strict('Zm9v'))).toBe(Uint8Array.prototype);
  });

  it("decodeBase64StrictShared (the engine's, no copy, P128) gives the same answer as a plain Uint8Array view", () => {
    for (const text of [
      'Zm9v',
      'QQ==',
      'Zg',
      'Zh==',
      'ab-c',
      'Zm9v\u00e9',
      encodeBase64(randomBytes(3309)),
    ]) {
      const shared = decodeBase64StrictShared(text);
      expect(shared).toEqual(decodeBase64Strict(text));
      if (shared !== undefined) expect(Object.getPrototypeOf(shared)).toBe(Uint8Array.prototype);
    }
    fc.assert(
      fc.property(mangledBase64, ({ mangled }) => {
        expect(decodeBase64StrictShared(mangled)).toEqual(decodeBase64Strict(mangled));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['URL-safe alphabet (-)', '-_-_'],
    ['URL-safe alphabet mixed in', 'ab-c'],
    ['missing padding (one =)', 'Zm8'],
    ['missing padding (two =)', 'Zg'],
    ['partial padding', 'Zg='],
    ['too much padding', 'Zm8=='],
    ['padding in the middle', 'Zg==Zm9v'],
    ['padding only', '===='],
    ['leading whitespace', ' Zm9v'],
    ['trailing newline', 'Zm9v\n'],
    ['inner space', 'Zm9v Zm9v'],
    ['line break inside', 'Zm9v\r\nYmFy'],
    ['a lone character', 'Z'],
    ['non-ASCII', 'Zm9v\u00e9'],
    ['non-canonical trailing bits, one byte (Zh== ≡ Zg==)', 'Zh=='],
    ['non-canonical trailing bits, one byte (Zv== ≡ Zg==)', 'Zv=='],
    ['non-canonical trailing bits, two bytes (Zm9= ≡ Zm8=)', 'Zm9='],
    ['non-canonical key text (last char B instead of =)', 'L9cW+sKJxJUX5+0v/4flcOUwqw4YlfwItf2z6dnBS19='],
  ])('rejects %s', (_label, text) => {
    expect(decodeBase64Strict(text)).toBeUndefined();
  });

  it('agrees with the RFC 4648 §4 grammar plus the canonical check on random and mangled texts', () => {
    const alphabet = fc.constantFrom(...'AQgw+/-_= \n\r\t.é'.split(''), 'Zm9v', 'QQ==', 'Zg', '=');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        expect(decodeBase64Strict(text)).toEqual(reference(text));
      }),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(mangledBase64, ({ data, text, mangled }) => {
        expect(decodeBase64Strict(text)).toEqual(data);
        expect(decodeBase64Strict(mangled)).toEqual(reference(mangled));
      }),
      { numRuns: 5000 },
    );
  });

  // The decoder counts on Node's reading every character outside the alphabet as no bits, save `-`
  // and `_` (P108): every UTF-16 code unit, in each place of a quantum, must agree with the grammar.
  it('agrees with the grammar for every UTF-16 code unit in every place of a text', () => {
    const templates = ['?AAA', 'A?AA', 'AA?A', 'AAA?', 'Zm9v?Zg=', 'Zg?=', 'Zm?=', 'Z?==', 'Zm9v???='];
    const disagreements: string[] = [];
    for (let code = 0; code < 0x10000; code++) {
      const character = String.fromCharCode(code);
      for (const template of templates) {
        const text = template.replaceAll('?', character);
        const got = decodeBase64Strict(text);
        const want = reference(text);
        if (
          (got === undefined) !== (want === undefined) ||
          (got !== undefined && want !== undefined && Buffer.compare(got, want) !== 0)
        )
          disagreements.push(`${template} U+${code.toString(16)}`);
      }
    }
    expect(disagreements).toEqual([]);
  });

  it('accepts the empty string as zero bytes', () => {
    expect(decodeBase64Strict('')).toEqual(new Uint8Array(0));
  });

  it('returns undefined for a non-string at run time', () => {
    expect(decodeBase64Strict(42 as unknown as string)).toBeUndefined();
  });
});

describe('hex', () => {
  it('writes lowercase hex and reads it back', () => {
    expect(toHex(bytes(0x00, 0x0f, 0xab, 0xff))).toBe('000fabff');
    expect(fromHex('000fabff')).toEqual(bytes(0x00, 0x0f, 0xab, 0xff));
    expect(toHex(new Uint8Array(0))).toBe('');
    expect(fromHex('')).toEqual(new Uint8Array(0));
  });

  it('encodes only the viewed bytes of a subarray', () => {
    expect(toHex(bytes(1, 2, 3, 4).subarray(2))).toBe('0304');
  });

  it.each([
    ['uppercase', 'ABCD'],
    ['mixed case', 'aBcd'],
    ['odd length', 'abc'],
    ['non-hex character', 'zz'],
    ['0x prefix', '0xab'],
    ['whitespace', 'ab cd'],
    ['trailing newline', 'abcd\n'],
  ])('fromHex rejects %s', (_label, text) => {
    expect(fromHex(text)).toBeUndefined();
  });

  it('fromHex returns a plain Uint8Array', () => {
    expect(Object.getPrototypeOf(fromHex('ab'))).toBe(Uint8Array.prototype);
  });
});

describe('utf8Encode', () => {
  it('encodes non-ASCII and astral characters as UTF-8', () => {
    expect(toHex(utf8Encode('é'))).toBe('c3a9');
    expect(toHex(utf8Encode('🌍'))).toBe('f09f8c8d');
    expect(utf8Encode('')).toEqual(new Uint8Array(0));
  });
});

describe('concatBytes and bytesEqual', () => {
  it('concatenates in order, including empty parts and subarrays', () => {
    expect(concatBytes()).toEqual(new Uint8Array(0));
    expect(concatBytes(bytes(1), new Uint8Array(0), bytes(2, 3), bytes(9, 4, 9).subarray(1, 2))).toEqual(
      bytes(1, 2, 3, 4),
    );
  });

  it('compares length and every byte', () => {
    expect(bytesEqual(bytes(1, 2, 3), bytes(1, 2, 3))).toBe(true);
    expect(bytesEqual(new Uint8Array(0), new Uint8Array(0))).toBe(true);
    expect(bytesEqual(bytes(1, 2, 3), bytes(1, 2, 4))).toBe(false);
    expect(bytesEqual(bytes(0, 2, 3), bytes(1, 2, 3))).toBe(false);
    expect(bytesEqual(bytes(1, 2), bytes(1, 2, 0))).toBe(false);
  });
});
