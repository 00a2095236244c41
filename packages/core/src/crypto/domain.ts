// Domain-separated messages: what every V2 signature actually covers.
// PROTOCOL §3 (DSM = UTF8(context) ‖ 0x00 ‖ payload; contexts from the profile, DECISIONS D1).

import { Buffer } from 'node:buffer';
import { plainBytesOf } from '../encoding/bytes.ts';
import { concatBytes, utf8 } from './bytes.ts';

const SEPARATOR = Uint8Array.of(0x00);

/**
 * UTF8(context) ‖ 0x00 of the context strings met so far: a V2 bundle's composite signatures (15 at
 * elevated-10, 65 at maximum-60) share six contexts, and encoding the context for each was 2 % of the
 * engine's own time (P128). Read only (copied from, never handed out); emptied when full, so a caller
 * passing ever new contexts cannot grow it.
 */
const CONTEXT_PREFIXES = new Map<string, Uint8Array>();
const CONTEXT_PREFIXES_MAX = 64;

function contextPrefix(context: string): Uint8Array {
  let prefix = CONTEXT_PREFIXES.get(context);
  if (prefix === undefined) {
    prefix = concatBytes(utf8(context), SEPARATOR);
    if (CONTEXT_PREFIXES.size >= CONTEXT_PREFIXES_MAX) CONTEXT_PREFIXES.clear();
    CONTEXT_PREFIXES.set(context, prefix);
  }
  return prefix;
}

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
  const withSuffix = concatBytes(contextPrefix(context), payload, suffix);
  return { dsm: withSuffix.subarray(0, withSuffix.length - suffix.length), withSuffix };
}

/**
 * A payload's UTF-8 bytes written once behind its DSM prefix, with room after them for the suffix of
 * the PQ message (the classical signature): both messages of a composite signature are then views of
 * one buffer, and nothing is copied per signature (P128; bench/strict-floor.ts builds them the same way).
 */
export interface FramedPayload {
  /** The full context string the prefix spells. */
  readonly context: string;
  /** The payload's bytes, a view of the frame. */
  readonly payload: Uint8Array;
  /** UTF8(context) ‖ 0x00 ‖ payload ‖ room. */
  readonly frame: Uint8Array;
}

/** `text` as UTF-8 behind UTF8(context) ‖ 0x00, with `room` bytes after it. */
export function framePayload(context: string, text: string, room: number): FramedPayload {
  const prefix = contextPrefix(context);
  const length = Buffer.byteLength(text, 'utf8');
  const buffer = Buffer.allocUnsafe(prefix.length + length + room);
  buffer.set(prefix);
  buffer.write(text, prefix.length, 'utf8');
  // Nothing here reads or writes outside the frame's own range, wherever allocUnsafe placed it.
  const frame = plainBytesOf(buffer);
  return { context, payload: frame.subarray(prefix.length, prefix.length + length), frame };
}

/**
 * `domainSeparatedMessages(framed.context, framed.payload, suffix)` without copying the payload: the
 * suffix is written into the frame's room (a longer one falls back to the copy). The views hold until
 * the next call on the same frame, which rewrites the room: use them before that.
 */
export function framedMessages(
  framed: FramedPayload,
  suffix: Uint8Array,
): { readonly dsm: Uint8Array; readonly withSuffix: Uint8Array } {
  const end = framed.payload.byteOffset - framed.frame.byteOffset + framed.payload.length;
  if (end + suffix.length > framed.frame.length)
    return domainSeparatedMessages(framed.context, framed.payload, suffix);
  framed.frame.set(suffix, end);
  return { dsm: framed.frame.subarray(0, end), withSuffix: framed.frame.subarray(0, end + suffix.length) };
}
