// Tests for dcp-jcs-v1 (V2) and V1 canonical JSON: the PROTOCOL §1.1 edge-case table, errors with paths, never throwing.
// PROTOCOL §1.1, §1.2; DECISIONS D2.
import { describe, expect, it } from 'vitest';
import {
  CANONICALIZATION_PROFILE,
  canonicalBytesV1,
  canonicalBytesV2,
  canonicalizeV1,
  canonicalizeV2,
  MAX_CANONICAL_DEPTH,
} from './index.ts';

function v2(value: unknown): string {
  const result = canonicalizeV2(value);
  if (!result.ok) throw new Error(`expected success, got: ${result.error.message}`);
  return result.value;
}

function v1(value: unknown): string {
  const result = canonicalizeV1(value);
  if (!result.ok) throw new Error(`expected success, got: ${result.error.message}`);
  return result.value;
}

function v2Error(value: unknown): string {
  const result = canonicalizeV2(value);
  if (result.ok) throw new Error(`expected an error, got: ${result.value}`);
  expect(result.error.code).toBe('BUNDLE_SCHEMA_INVALID');
  return result.error.message;
}

function v1Error(value: unknown): string {
  const result = canonicalizeV1(value);
  if (result.ok) throw new Error(`expected an error, got: ${result.value}`);
  expect(result.error.code).toBe('BUNDLE_SCHEMA_INVALID');
  return result.error.message;
}

function nestedArrays(depth: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

function nestedObjects(depth: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < depth; i++) value = { k: value };
  return value;
}

describe('constants', () => {
  it('names the profile and the depth limit of D2', () => {
    expect(CANONICALIZATION_PROFILE).toBe('dcp-jcs-v1');
    expect(MAX_CANONICAL_DEPTH).toBe(64);
  });
});

describe('canonicalizeV2: PROTOCOL §1.1 edge-case table', () => {
  // Inputs are JSON text, parsed first: the profile decides on parsed values (rule 4).
  const accepted: Array<[string, string]> = [
    ['null', 'null'],
    ['true', 'true'],
    ['false', 'false'],
    ['0', '0'],
    ['-0', '0'],
    ['1', '1'],
    ['1.0', '1'],
    ['1.00', '1'],
    ['1e2', '100'],
    ['100', '100'],
    ['-42', '-42'],
    ['{}', '{}'],
    ['[]', '[]'],
    ['{"x": null, "y": 1}', '{"x":null,"y":1}'],
    ['[1, null, 3]', '[1,null,3]'],
    ['{"é": 1, "e": 2, "z": 3}', '{"e":2,"z":3,"é":1}'],
    ['{"a": {"b": {"c": 42}}}', '{"a":{"b":{"c":42}}}'],
  ];
  it.each(accepted)('%s → %s', (input, output) => {
    expect(v2(JSON.parse(input))).toBe(output);
  });

  it.each(['0.1', '1.5', '1.0e-1'])('%s is rejected as a non-integer', (input) => {
    expect(v2Error(JSON.parse(input))).toBe(
      `$: non-integer number ${JSON.parse(input)} is not allowed by dcp-jcs-v1`,
    );
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
  ])('%s is rejected as non-finite', (label, value) => {
    expect(v2Error(value)).toBe(`$: non-finite number ${label} is not allowed by dcp-jcs-v1`);
  });

  it('writes the plain integer form of an integer given with a fraction or an exponent', () => {
    expect(v2(JSON.parse('{"a":1e15,"b":-2.50e1,"c":12345678901234.000}'))).toBe(
      '{"a":1000000000000000,"b":-25,"c":12345678901234}',
    );
  });
});

describe('canonicalizeV2: errors name the JSON path', () => {
  it('reports a float deep in a payload with its path', () => {
    const doc = { payload: { metrics: { error_rate: 0.5, uptime: 999 } } };
    expect(v2Error(doc)).toBe(
      '$.payload.metrics.error_rate: non-integer number 0.5 is not allowed by dcp-jcs-v1',
    );
  });

  it('uses [i] for array slots and quoted brackets for keys that are not identifiers', () => {
    expect(v2Error({ items: [1, 2, { 'odd key': [0, 0.25] }] })).toBe(
      '$.items[2]["odd key"][1]: non-integer number 0.25 is not allowed by dcp-jcs-v1',
    );
    expect(v2Error({ '1st': 0.5 })).toBe('$["1st"]: non-integer number 0.5 is not allowed by dcp-jcs-v1');
  });

  it('rejects integers beyond ±(2^53-1) as unsafe, and accepts the bounds', () => {
    expect(v2(Number.MAX_SAFE_INTEGER)).toBe('9007199254740991');
    expect(v2(Number.MIN_SAFE_INTEGER)).toBe('-9007199254740991');
    expect(v2Error({ n: 2 ** 53 })).toBe(
      '$.n: unsafe integer 9007199254740992 is outside ±(2^53-1) and not allowed by dcp-jcs-v1',
    );
    expect(v2Error(-(2 ** 53))).toMatch(/^\$: unsafe integer -9007199254740992/);
    // 1e21 would print as 1e+21 in TS and as 21 digits in Python (PROTOCOL §1.1 notes).
    expect(v2Error(JSON.parse('1e21'))).toMatch(/unsafe integer 1e\+21/);
  });

  it('rejects bigint, function and symbol values', () => {
    expect(v2Error({ n: 10n })).toBe('$.n: bigint 10 is not allowed by dcp-jcs-v1');
    expect(v2Error({ f: () => 1 })).toBe('$.f: function is not allowed by dcp-jcs-v1');
    expect(v2Error([Symbol('s')])).toBe('$[0]: symbol is not allowed by dcp-jcs-v1');
  });

  it('rejects non-plain objects instead of guessing their JSON form', () => {
    expect(v2Error({ at: new Date(0) })).toBe('$.at: object of type Date is not plain JSON data');
    expect(v2Error({ m: new Map() })).toBe('$.m: object of type Map is not plain JSON data');
    expect(v2Error(new Uint8Array(2))).toBe('$: object of type Uint8Array is not plain JSON data');
    expect(v2Error(new Number(1))).toBe('$: object of type Number is not plain JSON data');
    class Point {
      x = 1;
    }
    expect(v2Error({ p: new Point() })).toBe('$.p: object of type Point is not plain JSON data');
  });

  it('rejects a cycle, but accepts the same object reached twice without a cycle', () => {
    const loop: Record<string, unknown> = { a: 1 };
    loop['self'] = { back: loop };
    expect(v2Error(loop)).toBe('$.self.back: cycle: the value contains itself');
    const arrayLoop: unknown[] = [];
    arrayLoop.push(arrayLoop);
    expect(v2Error(arrayLoop)).toBe('$[0]: cycle: the value contains itself');
    const shared = { k: 1 };
    expect(v2({ a: shared, b: [shared, shared] })).toBe('{"a":{"k":1},"b":[{"k":1},{"k":1}]}');
  });

  it('finds the first cycle in writing order, and none where containers are only shared, over random graphs', () => {
    // P133: the writer tells a cycle by the containers open on its path (by depth), not by a Set. The
    // reference below keeps a Set of the open containers and walks in the same order (sorted names).
    let state = 133;
    const random = () => {
      state = (state * 1664525 + 1013904223) >>> 0;
      return state / 2 ** 32;
    };
    const firstCycle = (value: unknown, open: Set<object>, path: string): string | undefined => {
      if (typeof value !== 'object' || value === null) return undefined;
      if (open.has(value)) return path;
      open.add(value);
      const members: [string, unknown][] = Array.isArray(value)
        ? value.map((item, i) => [`${path}[${i}]`, item])
        : Object.keys(value)
            .sort()
            .map((key) => [`${path}.${key}`, (value as Record<string, unknown>)[key]]);
      for (const [at, member] of members) {
        const found = firstCycle(member, open, at);
        if (found !== undefined) return found;
      }
      open.delete(value);
      return undefined;
    };
    let cycles = 0;
    let shared = 0;
    for (let round = 0; round < 600; round++) {
      const open: object[] = [];
      const closed: object[] = [];
      let linked = false;
      const grow = (depth: number): unknown => {
        const roll = random();
        // A link to a container still open is a cycle; to one already closed, a shared container.
        if (depth > 0 && roll < 0.04 && open.length > 0) return open[Math.floor(random() * open.length)];
        if (depth > 0 && roll < 0.16 && closed.length > 0) {
          linked = true;
          return closed[Math.floor(random() * closed.length)];
        }
        if (depth > 6 || roll > 0.7) return Math.floor(random() * 10);
        const container: unknown[] | Record<string, unknown> = random() < 0.5 ? [] : {};
        open.push(container);
        const size = 1 + Math.floor(random() * 4);
        for (let i = 0; i < size; i++) {
          const member = grow(depth + 1);
          if (Array.isArray(container)) container.push(member);
          else container[`k${Math.floor(random() * 6)}`] = member;
        }
        open.pop();
        closed.push(container);
        return container;
      };
      const value = grow(0);
      const cycle = firstCycle(value, new Set(), '$');
      const result = canonicalizeV2(value);
      if (cycle === undefined) {
        // The same text as a copy that shares nothing.
        expect(result.ok && result.value).toBe(v2(JSON.parse(JSON.stringify(value))));
        if (linked) shared++;
      } else {
        cycles++;
        expect(!result.ok && result.error.message).toBe(`${cycle}: cycle: the value contains itself`);
      }
    }
    expect(cycles).toBeGreaterThan(50);
    expect(shared).toBeGreaterThan(40);
  });

  it('rejects top-level undefined, which has no JSON text', () => {
    expect(v2Error(undefined)).toBe('$: undefined has no JSON form');
  });
});

describe('canonicalizeV2: depth limit (D2)', () => {
  it('accepts 64 nested containers and rejects 65', () => {
    expect(v2(nestedArrays(64))).toBe(`${'['.repeat(64)}0${']'.repeat(64)}`);
    expect(v2Error(nestedArrays(65))).toMatch(/^\$(\[0\]){64}: nesting depth exceeds 64$/);
    expect(canonicalizeV2(nestedObjects(64)).ok).toBe(true);
    expect(v2Error(nestedObjects(65))).toBe(`$${'.k'.repeat(64)}: nesting depth exceeds 64`);
  });

  it('counts empty containers: 65 levels ending in [] are too deep', () => {
    let value: unknown = [];
    for (let i = 0; i < 64; i++) value = [value];
    expect(canonicalizeV2(value).ok).toBe(false);
  });

  it('does not overflow the stack on a very deep document', () => {
    expect(v2Error(nestedArrays(100_000))).toMatch(/nesting depth exceeds 64$/);
  });
});

describe('canonicalizeV2: strings and keys (rules 1, 3, 9)', () => {
  it('escapes only quote, backslash and control characters, with JSON.stringify short forms', () => {
    expect(v2('"\\/')).toBe('"\\"\\\\/"');
    expect(v2('\b\f\n\r\t')).toBe('"\\b\\f\\n\\r\\t"');
    expect(v2('\u0000\u0001\u001f')).toBe('"\\u0000\\u0001\\u001f"');
    expect(v2('\u007f<>&\u2028\u2029é🌍')).toBe('"\u007f<>&\u2028\u2029é🌍"');
  });

  it('escapes every string exactly as JSON.stringify does for all BMP non-surrogate code units', () => {
    const mismatches: number[] = [];
    for (let code = 0; code < 0x10000; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const text = `a${String.fromCharCode(code)}z`;
      if (v2({ [text]: text }) !== `{${JSON.stringify(text)}:${JSON.stringify(text)}}`) mismatches.push(code);
    }
    expect(mismatches).toEqual([]);
  });

  it('rejects lone surrogates in values and keys, accepts surrogate pairs', () => {
    expect(v2Error({ s: 'a\ud800' })).toBe(
      '$.s: string contains a lone surrogate, not allowed by dcp-jcs-v1',
    );
    expect(v2Error({ s: '\udfffa' })).toMatch(/lone surrogate/);
    expect(v2Error({ s: '\ude00\ud83d' })).toMatch(/lone surrogate/);
    expect(v2Error({ 'k\udc00': 1 })).toMatch(/^\$\["k\\udc00"\]: key contains a lone surrogate/);
    expect(v2(JSON.parse('"\\ud83d\\ude00"'))).toBe('"😀"');
  });

  // From 512 characters on a string is searched for each escaped character instead of scanned by a
  // regular expression (P108): every one of them, anywhere, must still reach JSON.stringify's form.
  it('quotes long strings exactly as JSON.stringify does, whatever they hold and wherever', () => {
    const base64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const filler = (length: number): string =>
      Array.from({ length }, (_, i) => base64[(i * 7 + (i >> 4)) % 64]).join('');
    const mismatches: string[] = [];
    for (const length of [97, 511, 512, 513, 4412]) {
      const plain = filler(length);
      if (v2({ [plain]: plain }) !== `{${JSON.stringify(plain)}:${JSON.stringify(plain)}}`)
        mismatches.push(`${length} plain`);
      for (const code of [0x22, 0x5c, ...Array.from({ length: 0x20 }, (_, c) => c), 0x7f, 0xe9, 0x2028]) {
        for (const at of [0, length >> 1, length - 1]) {
          const text = `${plain.slice(0, at)}${String.fromCharCode(code)}${plain.slice(at + 1)}`;
          if (v2({ [text]: text }) !== `{${JSON.stringify(text)}:${JSON.stringify(text)}}`)
            mismatches.push(`${length} U+${code.toString(16)} at ${at}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it("rejects a lone surrogate in a long string or key, and keeps a long string's surrogate pairs", () => {
    const long = 'A'.repeat(600);
    for (const text of [`${long}\ud800`, `\udfff${long}`, `${long}\ude00\ud83d${long}`]) {
      expect(v2Error({ s: text })).toBe('$.s: string contains a lone surrogate, not allowed by dcp-jcs-v1');
      expect(v2Error({ [text]: 1 })).toMatch(/: key contains a lone surrogate, not allowed by dcp-jcs-v1$/);
      expect(v1Error({ s: text })).toMatch(/^\$\.s: string contains a lone surrogate/);
    }
    const paired = `${long}😀${long}`;
    expect(v2(paired)).toBe(JSON.stringify(paired));
    expect(v2(paired)).toBe(`"${paired}"`);
  });

  it('sorts keys by UTF-16 code units, not by code point', () => {
    // U+1F600 is D83D DE00 in UTF-16, which sorts before U+FFFF; by code point it would sort after.
    expect(v2({ '\uffff': 1, '😀': 2 })).toBe('{"😀":2,"\uffff":1}');
    expect(v2({ b: 1, aa: 2, a: 3, B: 4, '': 5 })).toBe('{"":5,"B":4,"a":3,"aa":2,"b":1}');
    // Integer-like keys are ordered as strings, not in the engine's own-key order.
    expect(v2({ 10: 'x', 2: 'y', 1: 'z' })).toBe('{"1":"z","10":"x","2":"y"}');
  });

  it('does not normalise Unicode: NFC and NFD spellings give different bytes', () => {
    const nfc = 'caf\u00e9';
    const nfd = 'cafe\u0301';
    expect(v2(nfc)).not.toBe(v2(nfd));
    expect(v2({ [nfc]: 1, [nfd]: 2 })).toBe(`{"${nfd}":2,"${nfc}":1}`);
  });

  it('keeps an own "__proto__" member from JSON.parse as data', () => {
    expect(v2(JSON.parse('{"__proto__":{"x":1},"a":2}'))).toBe('{"__proto__":{"x":1},"a":2}');
  });
});

describe('canonicalizeV2: host values (rules 5, 6, 8)', () => {
  it('omits undefined members and writes undefined or missing array slots as null', () => {
    expect(v2({ a: undefined, b: 1, c: null })).toBe('{"b":1,"c":null}');
    expect(v2([undefined, 1])).toBe('[null,1]');
    // biome-ignore lint/suspicious/noSparseArray: a hole is exactly what is being tested
    expect(v2([1, , 3])).toBe('[1,null,3]');
    expect(v2({ only: undefined })).toBe('{}');
  });

  it('accepts objects without a prototype and ignores symbol keys and non-enumerable members', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare['b'] = 2;
    bare['a'] = 1;
    expect(v2(bare)).toBe('{"a":1,"b":2}');
    const hidden = { shown: 1, [Symbol('s')]: 2 };
    Object.defineProperty(hidden, 'secret', { value: 3, enumerable: false });
    expect(v2(hidden)).toBe('{"shown":1}');
  });

  it('keeps empty containers', () => {
    expect(v2({ a: {}, b: [], c: [{}, []] })).toBe('{"a":{},"b":[],"c":[{},[]]}');
  });
});

describe('canonicalizeV2 and V1 never throw', () => {
  const hostile: Array<[string, () => unknown]> = [
    [
      'a throwing getter',
      () => ({
        get boom(): never {
          throw new Error('getter exploded');
        },
      }),
    ],
    [
      'a proxy whose ownKeys trap throws',
      () =>
        new Proxy(
          {},
          {
            ownKeys() {
              throw new Error('no keys');
            },
          },
        ),
    ],
    [
      'a revoked proxy',
      () => {
        const { proxy, revoke } = Proxy.revocable({}, {});
        revoke();
        return { p: proxy };
      },
    ],
    [
      'a getter throwing a non-Error that cannot be printed',
      () => ({
        get boom(): never {
          throw Object.create(null);
        },
      }),
    ],
  ];

  it.each(hostile)('returns an error for %s', (_label, make) => {
    for (const canonicalize of [canonicalizeV2, canonicalizeV1]) {
      const result = canonicalize(make());
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toMatch(/^\$/);
    }
  });

  it('names the member whose getter threw', () => {
    const result = canonicalizeV2({
      a: {
        get b(): never {
          throw new Error('getter exploded');
        },
      },
    });
    expect(result.ok ? '' : result.error.message).toBe('$.a.b: value could not be read (getter exploded)');
  });
});

describe('canonicalizeV1 (PROTOCOL §1.2)', () => {
  it('writes floats with ECMAScript Number#toString', () => {
    expect(v1({ risk_score: 0.21 })).toBe('{"risk_score":0.21}');
    expect(v1(1e-7)).toBe('1e-7');
    expect(v1(1e21)).toBe('1e+21');
    expect(v1(0.1 + 0.2)).toBe('0.30000000000000004');
    expect(v1(-0)).toBe('0');
    expect(v1(JSON.parse('1.0'))).toBe('1');
    expect(v1(5e-324)).toBe('5e-324');
    expect(v1(Number.MAX_VALUE)).toBe('1.7976931348623157e+308');
    expect(v1(2 ** 53 + 2)).toBe('9007199254740994');
  });

  it('rejects NaN and ±Infinity (json-stable-stringify would silently write null)', () => {
    expect(v1Error({ x: Number.NaN })).toBe('$.x: non-finite number NaN is not allowed by V1 canonical JSON');
    expect(v1Error([Number.POSITIVE_INFINITY])).toMatch(/^\$\[0\]: non-finite number Infinity/);
  });

  it('sorts and escapes like V2', () => {
    expect(v1({ '\uffff': 1, '😀': 2, é: 3, e: '\n"' })).toBe('{"e":"\\n\\"","é":3,"😀":2,"\uffff":1}');
  });

  it('applies the V2 depth, surrogate, cycle and type rules', () => {
    expect(canonicalizeV1(nestedArrays(64)).ok).toBe(true);
    expect(v1Error(nestedArrays(65))).toMatch(/nesting depth exceeds 64$/);
    expect(v1Error({ s: '\ud800' })).toBe(
      '$.s: string contains a lone surrogate, not allowed by V1 canonical JSON',
    );
    const loop: Record<string, unknown> = {};
    loop['me'] = loop;
    expect(v1Error(loop)).toBe('$.me: cycle: the value contains itself');
    expect(v1Error({ f: () => 1 })).toBe('$.f: function is not allowed by V1 canonical JSON');
    expect(v1Error({ m: new Map() })).toBe('$.m: object of type Map is not plain JSON data');
  });

  it('honours toJSON as json-stable-stringify does (Date → ISO string)', () => {
    expect(v1({ at: new Date(Date.UTC(2026, 0, 1, 1, 0, 0)) })).toBe('{"at":"2026-01-01T01:00:00.000Z"}');
    const custom = { toJSON: () => ({ z: 1, a: [0.5] }) };
    expect(v1({ c: custom })).toBe('{"c":{"a":[0.5],"z":1}}');
    expect(v1({ c: { toJSON: () => undefined }, d: 1 })).toBe('{"d":1}');
    const failing = {
      toJSON: () => {
        throw new Error('nope');
      },
    };
    expect(v1Error({ c: failing })).toBe('$.c: value could not be read (nope)');
  });

  it('treats a "toJSON" member that is data, as JSON.parse produces it, as an ordinary member', () => {
    expect(v1(JSON.parse('{"toJSON":"x","a":1}'))).toBe('{"a":1,"toJSON":"x"}');
    expect(v2(JSON.parse('{"toJSON":"x","a":1}'))).toBe('{"a":1,"toJSON":"x"}');
  });

  it('gives the same text as V2 for integer-only data', () => {
    const doc = { b: [3, 1, { y: null, x: true }], a: 'é', n: -7 };
    expect(v1(doc)).toBe(v2(doc));
  });

  it('accepts the float V2 rejects', () => {
    expect(v1({ risk_score: 0.21 })).toBe('{"risk_score":0.21}');
    expect(v2Error({ risk_score: 0.21 })).toMatch(/non-integer number 0.21/);
  });
});

describe('canonicalBytes', () => {
  it('returns the UTF-8 bytes of the canonical text', () => {
    const v2Bytes = canonicalBytesV2({ b: 'é', a: 1 });
    expect(v2Bytes.ok && Buffer.from(v2Bytes.value).toString('utf8')).toBe('{"a":1,"b":"é"}');
    expect(v2Bytes.ok && v2Bytes.value.length).toBe(16);
    const v1Bytes = canonicalBytesV1({ r: 0.21 });
    expect(v1Bytes.ok && Buffer.from(v1Bytes.value).toString('utf8')).toBe('{"r":0.21}');
  });

  it('passes the canonicalisation error through', () => {
    const result = canonicalBytesV2({ r: 0.21 });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('BUNDLE_SCHEMA_INVALID');
      expect(result.error.message).toBe('$.r: non-integer number 0.21 is not allowed by dcp-jcs-v1');
    }
    expect(canonicalBytesV1({ r: Number.NaN }).ok).toBe(false);
  });
});
