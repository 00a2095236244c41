// Domain-separated messages: what every V2 signature actually covers.
// PROTOCOL §3 (DSM = UTF8(context) ‖ 0x00 ‖ payload; contexts from the profile, DECISIONS D1).

import { concatBytes, utf8 } from './bytes.ts';

const SEPARATOR = Uint8Array.of(0x00);

/**
 * UTF8(context) ‖ 0x00 ‖ payload: one NUL byte, no length prefixes. `context` is a full context
 * string from the profile (`contextString(profile, 'Bundle')` → `PROTO.v2.Bundle`); the payload is
 * the canonical bytes being signed.
 */
export function domainSeparatedMessage(context: string, payload: Uint8Array): Uint8Array {
  return concatBytes(utf8(context), SEPARATOR, payload);
}

/**
 * UTF8(context) ‖ 0x00 ‖ payload ‖ suffix in one allocation, with the DSM as a view of its start: the
 * PQ half of a composite signature covers DSM ‖ classical signature (PROTOCOL §4.1), so both
 * messages come from one copy of the payload instead of two.
 */
export function domainSeparatedMessages(
  context: string,
  payload: Uint8Array,
  suffix: Uint8Array,
): { readonly dsm: Uint8Array; readonly withSuffix: Uint8Array } {
  const withSuffix = concatBytes(utf8(context), SEPARATOR, payload, suffix);
  return { dsm: withSuffix.subarray(0, withSuffix.length - suffix.length), withSuffix };
}
