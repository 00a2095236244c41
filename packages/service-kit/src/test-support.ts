// Test oracles and inputs for the CBOR codec (tests only, also `@proto/service-kit/testing`): cbor-x as the
// reference decoder behind a plain strict scan of PROTOCOL §8.2's rules as P82 states them, the encoder as it
// was before P83 (cbor-x after a copy of the value), and the fast-check arbitraries the codec's tests share. Also the
// check of a configuration loader's upper bounds (P545).
import { isUtf8 } from 'node:buffer';
import { Decoder, Encoder } from 'cbor-x';
import fc from 'fast-check';
import { CborError } from './cbor-error.ts';
import { ConfigError } from './config.ts';

const MAX_DEPTH = 128;
const keyText = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Walks the encoded item and throws what P82's decoder refuses, with its message: the checks in a plain
 * form (a Set of keys and of JSON names per map, BigInt arguments), independent of the decoder's tricks.
 */
function strictScan(bytes: Uint8Array): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const need = (n: number) => {
    if (pos + n > bytes.length) throw new CborError(`truncated CBOR at byte ${pos}`);
  };
  const readArgument = (info: number, at: number): number => {
    if (info < 24) return info;
    const size = { 24: 1, 25: 2, 26: 4, 27: 8 }[info];
    if (size === undefined) {
      if (info === 31) throw new CborError(`indefinite length at byte ${at}`);
      throw new CborError(`reserved additional information ${info} at byte ${at}`);
    }
    need(size);
    let v = 0n;
    for (let i = 0; i < size; i++) v = (v << 8n) | BigInt(view.getUint8(pos + i));
    pos += size;
    if (v > BigInt(Number.MAX_SAFE_INTEGER))
      throw new CborError(`integer or length above 2^53 at byte ${at}`);
    return Number(v);
  };
  const skipText = (length: number, at: number): Uint8Array => {
    need(length);
    const text = bytes.subarray(pos, pos + length);
    pos += length;
    if (!isUtf8(text)) throw new CborError(`invalid UTF-8 text at byte ${at}`);
    return text;
  };
  const tooDeep = (depth: number): void => {
    // P592: a container at level 129 (the outermost is level 1), as the strict JSON reader counts.
    if (depth >= MAX_DEPTH) throw new CborError(`nesting deeper than ${MAX_DEPTH}`);
  };
  const item = (depth: number): void => {
    const at = pos;
    need(1);
    const head = bytes[pos++]!;
    const major = head >> 5;
    const info = head & 0x1f;
    if (major === 0 || major === 1) readArgument(info, at);
    else if (major === 2) {
      const length = readArgument(info, at);
      need(length);
      pos += length;
    } else if (major === 3) skipText(readArgument(info, at), at);
    else if (major === 4) {
      tooDeep(depth);
      const count = readArgument(info, at);
      for (let i = 0; i < count; i++) item(depth + 1);
    } else if (major === 5) {
      tooDeep(depth);
      const count = readArgument(info, at);
      const keys = new Set<string>();
      const names = new Set<string>();
      for (let i = 0; i < count; i++) {
        const keyAt = pos;
        need(1);
        const keyHead = bytes[pos++]!;
        if (keyHead >> 5 !== 3) throw new CborError(`map key is not a text string at byte ${keyAt}`);
        const key = keyText.decode(skipText(readArgument(keyHead & 0x1f, keyAt), keyAt));
        if (key === '__proto__') throw new CborError(`forbidden map key "__proto__" at byte ${keyAt}`);
        if (keys.has(key)) throw new CborError(`duplicate map key ${JSON.stringify(key)} at byte ${keyAt}`);
        keys.add(key);
        const name = pos < bytes.length && bytes[pos]! >> 5 === 2 ? `${key}_b64` : key;
        if (names.has(name))
          throw new CborError(
            `key ${JSON.stringify(name)} appears twice after byte-string renaming at byte ${keyAt}`,
          );
        names.add(name);
        item(depth + 1);
      }
    } else if (major === 6) throw new CborError(`tags are not allowed (byte ${at})`);
    else if (info === 20 || info === 21 || info === 22) return;
    else if (info >= 25 && info <= 27)
      throw new CborError(`floating-point numbers are not allowed (byte ${at})`);
    else if (info === 23) throw new CborError(`undefined is not allowed (byte ${at})`);
    else throw new CborError(`simple value ${info} is not allowed (byte ${at})`);
  };
  if (bytes.length === 0) throw new CborError('empty CBOR body');
  item(0);
  if (pos !== bytes.length) throw new CborError(`trailing bytes after the CBOR item (byte ${pos})`);
}

const decoder = new Decoder({
  useRecords: false,
  mapsAsObjects: true,
  copyBuffers: true,
  int64AsNumber: true,
} as ConstructorParameters<typeof Decoder>[0]);

/** PROTOCOL §8.2 `cborPayloadToJson` over cbor-x's value: byte strings as base64 text under `k_b64`. */
function toJsonValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      out[inner instanceof Uint8Array ? `${key}_b64` : key] = toJsonValue(inner);
    }
    return out;
  }
  return value;
}

/**
 * The reference decoding: P82's refusals from the plain scan, the value from cbor-x. (cbor-x strips a
 * leading U+FEFF from texts longer than 64 bytes, which the decoder keeps: tests pin that case apart.)
 */
export function referenceDecodeCbor(bytes: Uint8Array): unknown {
  strictScan(bytes);
  return toJsonValue(decoder.decode(bytes));
}

const encoder = new Encoder({
  useRecords: false,
  mapsAsObjects: true,
  variableMapSize: true,
  tagUint8Array: false,
  useTag259ForMaps: false,
} as ConstructorParameters<typeof Encoder>[0]);

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BYTE_KEYS = new Set(['public_key_b64', 'sig_b64']);
const textEncoder = new TextEncoder();

function compareKeys(a: string, b: string): number {
  const ea = textEncoder.encode(a);
  const eb = textEncoder.encode(b);
  if (ea.length !== eb.length) return ea.length - eb.length;
  for (let i = 0; i < ea.length; i++) if (ea[i] !== eb[i]) return ea[i]! - eb[i]!;
  return 0;
}

function toCborValue(value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new CborError(`CBOR carries integers only (got ${value})`);
    return Math.abs(value) > 0xffffffff ? BigInt(value) : value;
  }
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : toCborValue(v)));
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'object') {
    const source = value as Record<string, unknown>;
    if (typeof (source as { toJSON?: unknown }).toJSON === 'function')
      return toCborValue((source as { toJSON: () => unknown }).toJSON());
    const out: Record<string, unknown> = {};
    const mapped = Object.entries(source)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]): [string, unknown] =>
        BYTE_KEYS.has(k) && typeof v === 'string' && STRICT_BASE64.test(v)
          ? [k.slice(0, -4), Buffer.from(v, 'base64')]
          : [k, toCborValue(v)],
      );
    mapped.sort(([a], [b]) => compareKeys(a, b));
    for (const [k, v] of mapped) out[k] = v;
    return out;
  }
  throw new CborError(`value of type ${typeof value} cannot be encoded`);
}

/** The encoder before P83, unchanged: its bytes are the ones the direct writer keeps. */
export function previousEncodeCbor(value: unknown): Buffer {
  return Buffer.from(encoder.encode(toCborValue(value)));
}

export type CborOutcome = { readonly value: unknown } | { readonly refused: string };

/** What a decoder makes of the bytes: the value, or the refusal as `<error name>: <message>`. */
export function cborOutcome(decode: (bytes: Uint8Array) => unknown, bytes: Uint8Array): CborOutcome {
  try {
    return { value: decode(bytes) };
  } catch (error) {
    return { refused: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

/** Integers where a CBOR head grows (1, 2, 3, 5, 9 bytes) and where JavaScript's safe range ends. */
const EDGE_INTEGERS = [
  0,
  -0,
  -1,
  23,
  24,
  255,
  256,
  65_535,
  65_536,
  2 ** 32 - 1,
  2 ** 32,
  -(2 ** 32) + 1,
  -(2 ** 32) - 1,
  Number.MAX_SAFE_INTEGER,
  -(2 ** 53) + 1,
  -(2 ** 53),
];
const integers = fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constantFrom(...EDGE_INTEGERS));

const texts = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 90 }),
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.constantFrom('AQID', 'AQ==', 'AQI=', 'not base64!', '', 'x'.repeat(23), 'x'.repeat(24), 'é'.repeat(40)),
);

/**
 * Map keys: the names §8.2 renames (`sig`, `public_key`) and their `_b64` forms, index-like and forbidden
 * names, a key that differs from another by a leading U+FEFF only, and short and long random text.
 */
export const cborKeys = fc.oneof(
  fc.constantFrom(
    'sig',
    'sig_b64',
    'public_key',
    'public_key_b64',
    'a',
    'a_b64',
    '\uFEFFa',
    '0',
    '1',
    '__proto__',
    'verified',
    'checks',
    'é',
    '\u{1F600}',
    '\uFFFD',
    '',
  ),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
);

export interface CborValueOptions {
  /** The keys of maps (cborKeys, or a subset of it). */
  readonly keys: fc.Arbitrary<string>;
  /** The most items of an array and members of a map. */
  readonly maxItems: number;
  /** The longest byte string. */
  readonly maxBytes: number;
  /** Doubles among the leaves (the house encoder refuses them; a loose encoder writes them as floats). */
  readonly floats: boolean;
  /** `undefined` as an array item or a member's value (JSON drops the member and writes the item as null). */
  readonly undefinedItems: boolean;
  /** How much likelier a leaf is than an array, or than a map, at the top (deeper down, leaves win more). */
  readonly leafWeight: number;
  /** Maps the test cannot use are left out. */
  readonly mapFilter?: (map: Record<string, unknown>) => boolean;
}

/** JSON-shaped values with byte strings, nested small (fast-check's `depthSize: 'small'`). */
export function cborValues(options: CborValueOptions): fc.Arbitrary<unknown> {
  const leaves = [
    integers,
    texts,
    fc.boolean(),
    fc.constant(null),
    fc.uint8Array({ maxLength: options.maxBytes }),
  ];
  if (options.floats) leaves.push(fc.double());
  return fc.letrec((tie) => {
    const item = options.undefinedItems ? fc.oneof(tie('value'), fc.constant(undefined)) : tie('value');
    const maps = fc.dictionary(options.keys, item, { maxKeys: options.maxItems });
    return {
      // Leaves first: the arm fast-check favours as the depth grows.
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        { arbitrary: fc.oneof(...leaves), weight: options.leafWeight },
        { arbitrary: fc.array(item, { maxLength: options.maxItems }), weight: 1 },
        { arbitrary: options.mapFilter === undefined ? maps : maps.filter(options.mapFilter), weight: 1 },
      ),
    };
  }).value;
}

/** Raw CBOR tokens, so that heads the encoders never write (tags, indefinite lengths, reserved info) occur. */
const token = fc.oneof(
  fc.integer({ min: 0, max: 255 }).map((b) => [b]),
  fc
    .tuple(fc.integer({ min: 0, max: 7 }), fc.constantFrom(0, 1, 5, 23, 24, 25, 26, 27, 28, 31))
    .chain(([major, info]) =>
      fc.uint8Array({ minLength: 0, maxLength: 9 }).map((tail) => [(major << 5) | info, ...tail]),
    ),
  fc.constantFrom([0xef, 0xbb, 0xbf], [0x63, 0xef, 0xbb, 0xbf], [0x61, 0x61], [0x41, 0x01]),
);
/** Streams of raw tokens: mostly not one well-formed item, which is the point. */
export const cborTokenStreams = fc
  .array(token, { maxLength: 24 })
  .map((parts) => Uint8Array.from(parts.flat()));

/** Changes to make to an encoding: overwrite (0), cut (1) or insert (2) a byte, at a position taken modulo. */
export const cborEdits = fc.array(
  fc.tuple(fc.integer({ min: 0, max: 2 }), fc.nat(), fc.integer({ min: 0, max: 255 })),
  { maxLength: 3 },
);

/** A valid encoding with a few bytes changed, cut or inserted. */
export function mutated(
  bytes: Uint8Array,
  edits: readonly (readonly [number, number, number])[],
): Uint8Array {
  let out = Array.from(bytes);
  for (const [kind, where, byte] of edits) {
    const at = out.length === 0 ? 0 : where % out.length;
    if (kind === 0) out[at] = byte;
    else if (kind === 1) out = out.slice(0, at);
    else out.splice(at, 0, byte);
  }
  return Uint8Array.from(out);
}

/**
 * P545's check of a service's configuration loader against each variable's upper bound (the tests of every service
 * share it): past the bound (bound + 1, and 1e12 for a value set in the wrong unit) the loader must throw a
 * ConfigError naming that variable alone and its bound; at the bound it must load. Returns one line per departure,
 * empty when every variable holds.
 */
export function configBoundFaults(
  load: (env: Readonly<Record<string, string>>) => unknown,
  bounds: readonly (readonly [name: string, bound: number])[],
): string[] {
  const thrownBy = (env: Record<string, string>): unknown => {
    try {
      load(env);
    } catch (error) {
      return error;
    }
    return undefined;
  };
  const faults: string[] = [];
  for (const [name, bound] of bounds) {
    for (const value of [String(bound + 1), '1e12']) {
      const thrown = thrownBy({ [name]: value });
      const named =
        thrown instanceof ConfigError &&
        thrown.variables.length === 1 &&
        thrown.variables[0] === name &&
        thrown.message.includes(`${name} must be <= ${bound}`);
      if (!named) faults.push(`${name}=${value}: ${thrown === undefined ? 'loaded' : String(thrown)}`);
    }
    const atBound = thrownBy({ [name]: String(bound) });
    if (atBound !== undefined) faults.push(`${name}=${bound}: ${String(atBound)}`);
  }
  return faults;
}
