// V1 canonical JSON: json-stable-stringify's output (floats allowed, JS number text), without its silent fallbacks.
// PROTOCOL §1.2 (V1 bundle_hash, signature, intent_hash, prev_hash and Merkle leaves), DECISIONS D2.
import { utf8Encode } from '../encoding/index.ts';
import { ok, type Result } from '../result.ts';
import { type CanonicalRules, serializeCanonical } from './serialize.ts';

const V1_NAME = 'V1 canonical JSON';

const V1_RULES: CanonicalRules = {
  name: V1_NAME,
  // json-stable-stringify calls a function-valued toJSON (no argument) before writing a node, so a
  // Date becomes its ISO string as in the V1 signer. That costs one line, so we honour it; JSON
  // parsed from a bundle never carries functions, so verification is unaffected.
  honourToJSON: true,
  formatNumber(value) {
    // json-stable-stringify would write NaN/Infinity as `null`, which no V1 producer signs on purpose.
    if (!Number.isFinite(value))
      return { refused: `non-finite number ${value} is not allowed by ${V1_NAME}` };
    // ECMAScript Number#toString, as JSON.stringify: shortest round-trip, 1e-7, 1e+21; -0 → 0.
    return { text: String(value) };
  },
};

/**
 * V1 canonical text: keys sorted by UTF-16 code units, compact, strings escaped as JSON.stringify,
 * numbers as JSON.stringify (floats allowed). Same depth (64), lone-surrogate and cycle rules as
 * V2. Where json-stable-stringify silently drops or rewrites a value (functions, symbols, NaN,
 * non-plain objects after toJSON), this returns an error instead. Never throws.
 */
export function canonicalizeV1(value: unknown): Result<string> {
  return serializeCanonical(value, V1_RULES);
}

export function canonicalBytesV1(value: unknown): Result<Uint8Array> {
  const text = canonicalizeV1(value);
  return text.ok ? ok(utf8Encode(text.value)) : text;
}
