// Canonical JSON edge cases a faster writer could get wrong (P118): key order at any depth, names that sort
// differently by code unit and code point or that an engine orders itself, memo splicing, toJSON, depth.
// PROTOCOL §1.1 and §1.2; DECISIONS D2.
import { describe, expect, it } from 'vitest';
import {
  canonicalBytesV2,
  canonicalizeV1,
  canonicalizeV2,
  canonicalMemoV2,
  writeCanonicalV2,
} from './index.ts';

function v2(value: unknown): string {
  const result = canonicalizeV2(value);
  if (!result.ok) throw new Error(`expected success, got: ${result.error.message}`);
  return result.value;
}

function v2Error(value: unknown): string {
  const result = canonicalizeV2(value);
  if (result.ok) throw new Error(`expected an error, got: ${result.value}`);
  return result.error.message;
}

function answer(result: ReturnType<typeof canonicalizeV2>): string {
  return result.ok ? result.value : `error: ${result.error.message}`;
}

describe('key order', () => {
  it('sorts unsorted objects at every depth, under sorted and unsorted parents', () => {
    const value = {
      z: { b: [{ y: 1, x: { d: 4, c: 3 } }], a: 2 },
      a: { m: { q: 1, p: { s: 2, r: 1 } } },
    };
    expect(v2(value)).toBe(
      '{"a":{"m":{"p":{"r":1,"s":2},"q":1}},"z":{"a":2,"b":[{"x":{"c":3,"d":4},"y":1}]}}',
    );
    // Leaves the input as it was: sorting works on copies.
    expect(Object.keys(value)).toEqual(['z', 'a']);
    expect(Object.keys(value.z.b[0] as object)).toEqual(['y', 'x']);
  });

  it('orders by UTF-16 code units: U+E000 after the surrogate pair of U+1F600', () => {
    expect(v2({ '\ue000': 1, '\ud83d\ude00': 2 })).toBe('{"\ud83d\ude00":2,"\ue000":1}');
    expect(v2({ n: { '\ue000': 1, '\ud83d\ude00': 2, a: 0 } })).toBe(
      '{"n":{"a":0,"\ud83d\ude00":2,"\ue000":1}}',
    );
  });

  it('orders integer-like names as strings, also when the object needs sorting for other names', () => {
    expect(v2({ b: 1, 10: 'x', 9: 'y', a: 2 })).toBe('{"10":"x","9":"y","a":2,"b":1}');
    expect(v2({ o: { 2: 0, 1: 0 } })).toBe('{"o":{"1":0,"2":0}}');
    expect(v2([{ z: 0, 0: 1 }])).toBe('[{"0":1,"z":0}]');
  });

  it('keeps an own "__proto__" member as data in a sorted, an unsorted and a nested object', () => {
    expect(v2(JSON.parse('{"a":1,"__proto__":{"y":1,"x":2}}'))).toBe('{"__proto__":{"x":2,"y":1},"a":1}');
    expect(v2(JSON.parse('{"__proto__":[1],"b":{"a":0}}'))).toBe('{"__proto__":[1],"b":{"a":0}}');
    expect(v2({ k: JSON.parse('{"z":0,"__proto__":null}') })).toBe('{"k":{"__proto__":null,"z":0}}');
  });
});

describe('values', () => {
  it('writes holes and undefined slots as null and omits undefined members inside copied objects', () => {
    // biome-ignore lint/suspicious/noSparseArray: a hole is exactly what is being tested
    expect(v2({ b: [1, , undefined, { d: undefined, c: 1 }], a: undefined })).toBe(
      '{"b":[1,null,null,{"c":1}]}',
    );
    const sparse: unknown[] = [];
    sparse[3] = { y: 0, x: 0 };
    expect(v2(sparse)).toBe('[null,null,null,{"x":0,"y":0}]');
  });

  it('writes -0 as 0, the safe bounds in full, and refuses 1e21 with its path', () => {
    expect(v2({ b: -0, a: [-0] })).toBe('{"a":[0],"b":0}');
    expect(v2({ n: [Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER], m: 2 ** 52 })).toBe(
      '{"m":4503599627370496,"n":[9007199254740991,-9007199254740991]}',
    );
    expect(v2Error({ z: 0, a: { y: [0, 1e21] } })).toBe(
      '$.a.y[1]: unsafe integer 1e+21 is outside ±(2^53-1) and not allowed by dcp-jcs-v1',
    );
  });

  it('refuses fractions and non-finite numbers with the same path inside unsorted objects', () => {
    expect(v2Error({ z: { y: 1, x: [{ b: 0, a: 1.5 }] } })).toBe(
      '$.z.x[0].a: non-integer number 1.5 is not allowed by dcp-jcs-v1',
    );
    expect(v2Error({ b: Number.NaN, a: Number.POSITIVE_INFINITY })).toBe(
      '$.a: non-finite number Infinity is not allowed by dcp-jcs-v1',
    );
    expect(v2Error([{ q: 0, p: Number.NEGATIVE_INFINITY }])).toBe(
      '$[0].p: non-finite number -Infinity is not allowed by dcp-jcs-v1',
    );
  });

  it('refuses lone surrogates in names and strings inside unsorted objects', () => {
    expect(v2Error({ z: 0, a: { 'k\ud800': 1 } })).toBe(
      '$.a["k\\ud800"]: key contains a lone surrogate, not allowed by dcp-jcs-v1',
    );
    expect(v2Error({ z: ['\udc00'], a: 0 })).toBe(
      '$.z[0]: string contains a lone surrogate, not allowed by dcp-jcs-v1',
    );
  });

  it('accepts 64 levels of unsorted objects and refuses 65 with the writer message', () => {
    const nest = (depth: number): unknown => {
      let value: unknown = 0;
      for (let i = 0; i < depth; i++) value = { z: value, a: i };
      return value;
    };
    expect(canonicalizeV2(nest(64)).ok).toBe(true);
    expect(v2(nest(2))).toBe('{"a":1,"z":{"a":0,"z":0}}');
    expect(v2Error(nest(65))).toBe(`$${'.z'.repeat(64)}: nesting depth exceeds 64`);
  });
});

describe('toJSON', () => {
  it('never calls a toJSON that JSON.stringify would find on Object.prototype or Array.prototype', () => {
    const protos = [Object.prototype, Array.prototype] as Record<string, unknown>[];
    for (const proto of protos) {
      proto['toJSON'] = () => 'hijacked';
      try {
        expect(v2({ b: [1], a: {} })).toBe('{"a":{},"b":[1]}');
      } finally {
        delete proto['toJSON'];
      }
    }
  });

  it("ignores an Array subclass's toJSON in V2 and calls it in V1", () => {
    class Listed extends Array<number> {
      toJSON(): string {
        return 'listed';
      }
    }
    const list = Listed.from([1, 2]);
    expect(v2({ l: list })).toBe('{"l":[1,2]}');
    expect(answer(canonicalizeV1({ l: list, a: 1 }))).toBe('{"a":1,"l":"listed"}');
  });

  it('calls a V1 toJSON nested in an unsorted object (Date → ISO string)', () => {
    expect(answer(canonicalizeV1({ z: 0.5, a: { at: new Date(0) } }))).toBe(
      '{"a":{"at":"1970-01-01T00:00:00.000Z"},"z":0.5}',
    );
  });
});

describe('memo', () => {
  it('reuses memoised texts in a streamed value: same text, tricky strings and many parts included', () => {
    const parts = Array.from({ length: 12 }, (_, i) => ({ z: i, a: [`p${i}`] }));
    const memo = canonicalMemoV2();
    for (const part of parts) expect(canonicalBytesV2(part, memo).ok).toBe(true);
    const value = {
      // Text that looks like a placeholder's escape, next to quotes and backslashes.
      y: ['\\ud8000', '"\\ud800', '\\"\\ud80011'],
      b: parts,
      a: { again: parts[11], first: parts[0] },
    };
    const pieces: string[] = [];
    let reused = 0;
    const sink = {
      text: (p: string) => pieces.push(p),
      reuse: (e: { text: string }) => {
        reused++;
        pieces.push(e.text);
      },
    };
    expect(writeCanonicalV2(value, sink, memo).ok).toBe(true);
    expect(pieces.join('')).toBe(v2(value));
    expect(reused).toBe(14);
  });

  it('remembers texts with their height, so reuse deeper in a value keeps the depth limit', () => {
    let deep: unknown = 0;
    for (let i = 0; i < 62; i++) deep = { y: deep, x: i };
    const memo = canonicalMemoV2();
    expect(canonicalBytesV2(deep, memo).ok).toBe(true);
    const pieces: string[] = [];
    const sink = { text: (p: string) => pieces.push(p), reuse: (e: { text: string }) => pieces.push(e.text) };
    // 62 levels under two more: 64, accepted and reused whole.
    expect(writeCanonicalV2([[deep]], sink, memo).ok).toBe(true);
    expect(pieces.join('')).toBe(v2([[deep]]));
    // Under three more: 65, refused although the memo holds its text.
    expect(writeCanonicalV2([[[deep]]], sink, memo).ok).toBe(false);
  });
});

/** Deterministic 32-bit generator (mulberry32), so a failure names a seed that reproduces it. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const NAMES = ['a', 'b', 'z', 'A', '', '10', '9', '0', '__proto__', 'é', '\ue000', '😀', 'k\ud800', 'toJSON'];
const STRINGS = ['', 'x', '"\\', '\n\u0000', 'é😀', '\udc00', 'A'.repeat(600), `${'B'.repeat(700)}"`];
const NUMBERS = [0, -0, 1, -7, 0.5, 2 ** 53, 2 ** 53 - 1, 1e21, 1e-7, Number.NaN, Number.POSITIVE_INFINITY];

function randomValue(next: () => number, budget: number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  if (budget <= 0 || next() < 0.35) {
    const kind = Math.floor(next() * 6);
    if (kind === 0) return pick(STRINGS);
    if (kind === 1) return pick(NUMBERS);
    if (kind === 2) return Math.floor((next() - 0.5) * 2 ** 40);
    if (kind === 3) return next() < 0.5;
    if (kind === 4) return null;
    return next() < 0.95 ? `s${Math.floor(next() * 1000)}` : undefined;
  }
  const size = Math.floor(next() * 5);
  if (next() < 0.4) {
    const items: unknown[] = [];
    for (let i = 0; i < size; i++) if (next() < 0.9) items[i] = randomValue(next, budget - 1);
    if (next() < 0.1) items.length += 2; // trailing holes
    return items;
  }
  const record: Record<string, unknown> = next() < 0.1 ? Object.create(null) : {};
  for (let i = 0; i < size; i++) {
    const name = next() < 0.6 ? pick(NAMES) : String.fromCharCode(97 + Math.floor(next() * 26));
    // defineProperty, so that "__proto__" is an own member as JSON.parse makes it.
    Object.defineProperty(record, name, {
      value: randomValue(next, budget - 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return record;
}

/** `value` under 60–66 levels of arrays and two-member objects in either order: around the depth limit. */
function deepen(value: unknown, next: () => number): unknown {
  const levels = 60 + Math.floor(next() * 7);
  let out = value;
  for (let i = 0; i < levels; i++) {
    const roll = next();
    out = roll < 0.3 ? [out] : roll < 0.65 ? { z: out, a: i } : { a: i, z: out };
  }
  return out;
}

/** dcp-jcs-v1 spelled out as plainly as possible (no speed, no paths): the text, or undefined if refused. */
function reference(value: unknown, depth = 0): string | undefined {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined;
  if (typeof value === 'string') return /\p{Cs}/u.test(value) ? undefined : JSON.stringify(value);
  if (typeof value !== 'object' || depth >= 64) return undefined;
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const text = value[i] === undefined ? 'null' : reference(value[i], depth + 1);
      if (text === undefined) return undefined;
      parts.push(text);
    }
    return `[${parts.join(',')}]`;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record).sort()) {
    if (/\p{Cs}/u.test(key)) return undefined;
    if (record[key] === undefined) continue;
    const text = reference(record[key], depth + 1);
    if (text === undefined) return undefined;
    parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

describe('canonicalizeV2 against a plain reference on random values', () => {
  it('gives its text, or refuses what it refuses, on 4,000 seeded values', () => {
    const next = generator(8785);
    const mismatches: number[] = [];
    for (let i = 0; i < 4000; i++) {
      const shallow = randomValue(next, 5);
      const value = next() < 0.1 ? deepen(shallow, next) : shallow;
      const result = canonicalizeV2(value);
      const expected = reference(value);
      if (result.ok ? result.value !== expected : expected !== undefined) mismatches.push(i);
    }
    expect(mismatches).toEqual([]);
  });
});
