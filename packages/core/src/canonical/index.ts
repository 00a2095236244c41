// Public API of canonical JSON: dcp-jcs-v1 for V2, json-stable-stringify rules for V1.
// PROTOCOL §1.1 and §1.2, DECISIONS D2.

export { prototypeMemberMessage, prototypeMemberPath } from './prototype-member.ts';
export {
  type CanonicalMemo,
  type CanonicalSink,
  MAX_CANONICAL_DEPTH,
  type MemoEntry,
} from './serialize.ts';
export {
  checkParsedJson,
  MAX_STRICT_JSON_DEPTH,
  parseStrictJson,
  parseStrictJsonBytes,
} from './strict-json.ts';
export { canonicalBytesV1, canonicalizeV1 } from './v1.ts';
export {
  CANONICALIZATION_PROFILE,
  canonicalBytesV2,
  canonicalizeV2,
  canonicalMemoV2,
  writeCanonicalV2,
} from './v2.ts';
