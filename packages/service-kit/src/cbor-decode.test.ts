// The one-walk strict decoder against the reference (cbor-x for values, a plain scan of P82's rules for
// refusals): the same value or the same refusal for every input, valid, mutated, hostile or random.
// Issue 14 items 2 and 4, P69, P82.
import { Encoder } from 'cbor-x';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readCborBody, readJsonBody } from './body-readers.ts';
import { decodeCbor } from './cbor-decode.ts';
import { encodeCbor } from './cbor-encode.ts';
import {
  cborEdits,
  cborKeys,
  cborOutcome,
  cborTokenStreams,
  cborValues,
  mutated,
  referenceDecodeCbor,
} from './test-support.ts';

function expectSameAsReference(bytes: Uint8Array): void {
  const ours = cborOutcome(decodeCbor, bytes);
  // Bad input is a CborError (a 400), never a TypeError or RangeError (a bug).
  if ('refused' in ours) expect(ours.refused).toMatch(/^CborError: /);
  expect(ours).toStrictEqual(cborOutcome(referenceDecodeCbor, bytes));
}

/** cbor-x without canonical ordering: any key order, floats, byte strings, big integers as they come. */
const looseEncoder = new Encoder({ useRecords: false, mapsAsObjects: true, variableMapSize: true });

/** Small trees, floats included: the loose encoder writes them, both decoders must refuse them alike. */
const tree = cborValues({
  keys: cborKeys,
  maxItems: 5,
  maxBytes: 40,
  floats: true,
  undefinedItems: false,
  leafWeight: 1,
});

describe('decodeCbor against the reference', () => {
  it('answers the refusal cases alike', () => {
    for (const hex of [
      'c11a514b67b0',
      'f97e00',
      'fb3ff8000000000000',
      'f7',
      'f0',
      '9f01ff',
      'a10102',
      'a2616101616102',
      'a16161a2616201616202',
      'a2637369674101677369675f6236346441513d3d',
      '63eda080',
      'a163eda08001',
      '0000',
      '1bffffffffffffffff',
      '1b001fffffffffffff',
      '3b001fffffffffffff',
      '1b0020000000000000',
      '62c328',
      'a1695f5f70726f746f5f5f01',
      '83',
      '9b00000001000000000000',
      '',
      `${'81'.repeat(129)}01`,
      `${'81'.repeat(128)}01`,
      // A byte-order mark is a character of the key: "a" and U+FEFF "a" are two keys (P82).
      'a261610164efbbbf6102',
      'a164efbbbf6163efbbbf',
      // `_b64` collisions either way round, and a byte string under `a_b64` beside one under `a`.
      'a2637369674101677369675f6236346441513d3d',
      'a2677369675f6236346441513d3d637369674101',
      'a26161410165615f6236344102',
    ]) {
      expectSameAsReference(Buffer.from(hex, 'hex'));
    }
  });

  it('decodes what the canonical encoder writes to the same value (bundles, keys, bytes)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        let bytes: Uint8Array;
        try {
          bytes = encodeCbor(value);
        } catch {
          return; // floats: not CBOR-encodable by the house encoder
        }
        expectSameAsReference(bytes);
      }),
      { numRuns: 600 },
    );
  });

  it('gives the same value or the same refusal for loosely encoded and mutated values', () => {
    fc.assert(
      fc.property(tree, cborEdits, (value, edits) => {
        const bytes = looseEncoder.encode(value);
        expectSameAsReference(bytes);
        expectSameAsReference(mutated(bytes, edits));
      }),
      { numRuns: 1500 },
    );
  });

  it('gives the same refusal (or value) for raw token streams and random bytes', () => {
    fc.assert(fc.property(cborTokenStreams, expectSameAsReference), { numRuns: 3000 });
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), expectSameAsReference), { numRuns: 2000 });
  });

  it('decodes a subarray of a larger buffer (a batch item, a pooled body) from its own offset', () => {
    const item = encodeCbor({ sig_b64: 'AQID', n: 2 ** 40, t: 'é' });
    const pooled = Buffer.concat([Buffer.from([0xff, 0xff, 0xff]), item, Buffer.from([0x00])]);
    const view = pooled.subarray(3, 3 + item.length);
    expect(decodeCbor(view)).toStrictEqual({ sig_b64: 'AQID', n: 2 ** 40, t: 'é' });
  });
});

describe('decodeCbor key cache (P131)', () => {
  it('gives each key its own text when many keys share cache slots, across calls, with and without bytes', () => {
    // 6,000 distinct keys (5 bytes, and 29 to 32: up to the cache's longest) overfill its 1,024 slots: hits,
    // misses and slot collisions, each key's value a byte string or text so `_b64` names come and go.
    const keys = Array.from({ length: 3000 }, (_, i) => [
      `k${String(i).padStart(4, '0')}`,
      `${'p'.repeat(28)}${i}`,
    ]).flat();
    for (let round = 0; round < 3; round++) {
      const value: Record<string, unknown> = {};
      keys.forEach((key, i) => {
        if ((i + round) % 3 === 0) value[`${key}_b64`] = Buffer.from([i & 0xff, round]).toString('base64');
        else value[key] = `${key}:${round}`;
      });
      const bytes = encodeCbor(value);
      expect(decodeCbor(bytes)).toStrictEqual(referenceDecodeCbor(bytes));
      expect(decodeCbor(bytes)).toStrictEqual(value);
    }
  });

  it('refuses a duplicate of a cached key and a truncated key as before', () => {
    // {"ab": 1} first caches "ab"; then {"ab": 1, "ab": 2} and a key cut short.
    expect(decodeCbor(Buffer.from('a162616201', 'hex'))).toStrictEqual({ ab: 1 });
    expect(() => decodeCbor(Buffer.from('a26261620162616202', 'hex'))).toThrow(
      'duplicate map key "ab" at byte 5',
    );
    expect(() => decodeCbor(Buffer.from('a1626162', 'hex').subarray(0, 3))).toThrow(
      'truncated CBOR at byte 2',
    );
  });
});

describe('decodeCbor rules of P82', () => {
  const refusal = (hex: string) => () => decodeCbor(Buffer.from(hex, 'hex'));

  it('keeps a leading U+FEFF in keys and in texts of any length', () => {
    expect(decodeCbor(Buffer.from('a261610164efbbbf6102', 'hex'))).toStrictEqual({ a: 1, '\uFEFFa': 2 });
    const long = `\uFEFF${'x'.repeat(97)}`;
    const bytes = encodeCbor({ [long]: long });
    expect(decodeCbor(bytes)).toStrictEqual({ [long]: long });
  });

  it('refuses a duplicate key by its exact text, and a `_b64` collision either way round', () => {
    expect(refusal('a2616101616102')).toThrow('duplicate map key "a" at byte 4');
    // `a` as a byte string, then `a` again: the same key, whatever its value.
    expect(refusal('a261614101616102')).toThrow('duplicate map key "a" at byte 5');
    expect(refusal('a2637369674101677369675f6236346441513d3d')).toThrow(
      'key "sig_b64" appears twice after byte-string renaming at byte 7',
    );
    expect(refusal('a2677369675f6236346441513d3d637369674101')).toThrow(
      'key "sig_b64" appears twice after byte-string renaming at byte 14',
    );
    // Bytes under `a` and bytes under `a_b64` are `a_b64` and `a_b64_b64`: no collision.
    expect(decodeCbor(Buffer.from('a26161410165615f6236344102', 'hex'))).toStrictEqual({
      a_b64: 'AQ==',
      a_b64_b64: 'Ag==',
    });
  });

  it('answers the first refusal in byte order (a collision before a float)', () => {
    // {sig: h'01', sig_b64: "AQ==", x: 1.5}: the collision at byte 7 comes before the float at byte 23.
    expect(refusal('a3637369674101677369675f6236346441513d3d6178f93e00')).toThrow(/appears twice.*at byte 7/);
    // {x: 1.5, sig: h'01', sig_b64: "AQ=="}: the float first.
    expect(refusal('a36178f93e00637369674101677369675f6236346441513d3d')).toThrow(/floating-point.*byte 3/);
  });
});

describe('P592: nesting counted as the JSON reader counts it', () => {
  /** `levels` containers (arrays, or maps under the key "a"), the innermost empty or holding one null. */
  const nested = (levels: number, kind: 'array' | 'map', leaf: boolean) => {
    const open = kind === 'array' ? ['81', '['] : ['a16161', '{"a":'];
    const innermost =
      kind === 'array'
        ? leaf
          ? ['81f6', '[null]']
          : ['80', '[]']
        : leaf
          ? ['a16161f6', '{"a":null}']
          : ['a0', '{}'];
    const close = kind === 'array' ? ']' : '}';
    return {
      cbor: Buffer.from(`${open[0]!.repeat(levels - 1)}${innermost[0]}`, 'hex'),
      json: Buffer.from(`${open[1]!.repeat(levels - 1)}${innermost[1]}${close.repeat(levels - 1)}`),
    };
  };

  it.each(['array', 'map'] as const)('128 levels of %s are read on either wire, 129 on neither', (kind) => {
    for (const levels of [127, 128, 129, 130]) {
      for (const leaf of [false, true]) {
        const { cbor, json } = nested(levels, kind, leaf);
        const read = { levels, leaf, cbor: readCborBody(cbor).ok, json: readJsonBody(json).ok };
        expect(read).toEqual({ levels, leaf, cbor: levels <= 128, json: levels <= 128 });
      }
    }
  });
});
