// V2 canonical JSON, profile dcp-jcs-v1: RFC 8785 restricted to safe integers; input of every V2 hash and signature.
// PROTOCOL §1.1 (rules and edge-case table), DECISIONS D2.
import { Buffer } from 'node:buffer';
import { plainBytesOf } from '../encoding/bytes.ts';
import { utf8Encode } from '../encoding/index.ts';
import { ok, type Result } from '../result.ts';
import {
  CanonicalMemo,
  type CanonicalRules,
  type CanonicalSink,
  serializeCanonical,
  writeCanonical,
} from './serialize.ts';

export const CANONICALIZATION_PROFILE = 'dcp-jcs-v1';

const V2_RULES: CanonicalRules = {
  name: CANONICALIZATION_PROFILE,
  honourToJSON: false,
  formatNumber(value) {
    if (!Number.isFinite(value))
      return { refused: `non-finite number ${value} is not allowed by ${CANONICALIZATION_PROFILE}` };
    if (!Number.isInteger(value)) {
      return { refused: `non-integer number ${value} is not allowed by ${CANONICALIZATION_PROFILE}` };
    }
    // Beyond 2^53-1 a parsed integer may already have lost digits, and SDKs disagree on how to
    // print it (TS `1e+21`, Python exact digits: PROTOCOL §1.1 notes), so no hash can be trusted.
    if (!Number.isSafeInteger(value)) {
      return {
        refused: `unsafe integer ${value} is outside ±(2^53-1) and not allowed by ${CANONICALIZATION_PROFILE}`,
      };
    }
    // Plain integer form; String(-0) is "0" (rule 4: 1.0 → 1, -0 → 0, 1e2 → 100).
    return { text: String(value) };
  },
};

/**
 * dcp-jcs-v1 text of a JSON value. Accepts null, booleans, strings without lone surrogates, safe
 * integers, arrays and plain objects nested at most 64 deep; `undefined` members are omitted and
 * `undefined` array slots become `null`. Everything else (fractions, NaN/±Infinity, unsafe
 * integers, bigint, functions, symbols, cycles, and non-plain objects such as Date or Map, whose
 * `toJSON` is deliberately not consulted: signed bytes come from data, not from host conversions)
 * is an error `BUNDLE_SCHEMA_INVALID` whose message starts with the JSON path. Never throws.
 */
export function canonicalizeV2(value: unknown, memo?: CanonicalMemo): Result<string> {
  return serializeCanonical(value, V2_RULES, memo);
}

/** UTF-8 bytes of `canonicalizeV2(value)`: exactly what V2 hashes and signatures cover. */
export function canonicalBytesV2(value: unknown, memo?: CanonicalMemo): Result<Uint8Array> {
  return encodedCanonicalV2(value, memo, utf8Encode);
}

/**
 * `canonicalBytesV2` as a view that may share Node's Buffer pool with other allocations (texts under
 * 4 KiB: a bundle's manifest, entries and checkpoint bodies), for the engine, which only reads the bytes
 * of one verification: TextEncoder allocates an ArrayBuffer per text, 10 µs of an elevated-10 bundle
 * (P128). Never write to it, nor transfer or detach its buffer.
 */
export function canonicalBytesSharedV2(value: unknown, memo?: CanonicalMemo): Result<Uint8Array> {
  return encodedCanonicalV2(value, memo, utf8EncodeShared);
}

function utf8EncodeShared(text: string): Uint8Array {
  return plainBytesOf(Buffer.from(text, 'utf8'));
}

/**
 * `canonicalBytesV2` with the bytes written by `encode`, which returns the UTF-8 of the text it is given
 * (the engine writes a signed payload behind its context prefix, P128); remembered in `memo` alike.
 */
export function encodedCanonicalV2(
  value: unknown,
  memo: CanonicalMemo | undefined,
  encode: (text: string) => Uint8Array,
): Result<Uint8Array> {
  const text = canonicalizeV2(value, memo);
  if (!text.ok) return text;
  const bytes = encode(text.value);
  // Kept for a larger value's incremental hash, which then takes these bytes as they are.
  if (memo !== undefined && typeof value === 'object' && value !== null)
    memo.rememberBytes(value, text.value, bytes);
  return ok(bytes);
}

/**
 * Writes the dcp-jcs-v1 form of `value` into `sink` piece by piece (memoised containers whole):
 * the same accept/reject and the same text as `canonicalizeV2`, without building it. Never throws.
 */
export function writeCanonicalV2(value: unknown, sink: CanonicalSink, memo?: CanonicalMemo): Result<void> {
  const written = writeCanonical(value, V2_RULES, sink, memo);
  return written.ok ? ok(undefined) : written;
}

/**
 * A memo for `canonicalizeV2`: texts written through it are reused, by object identity, when a
 * larger value holding them is canonicalised through it later (one bundle's parts, then the whole
 * bundle for its hash). Scope it to one verification of values that nothing mutates meanwhile.
 */
export function canonicalMemoV2(): CanonicalMemo {
  return new CanonicalMemo(V2_RULES);
}
