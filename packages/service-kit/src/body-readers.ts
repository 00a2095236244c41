// The strict readers of a request body's bytes, without Fastify: the kit's content-type parsers (wire-format.ts) use
// them on the event loop, and a worker thread that is handed a body's raw bytes (the revocation service's
// POST /emergency-tokens, P576) uses them off it, so both refuse the same bytes with the same words. PROTOCOL §8.2,
// P2, P316, P336, P381. No Fastify, pino or Redis here: a thread loads this module alone (P72).
import { checkParsedJson, prototypeMemberMessage, prototypeMemberPath } from '@proto/core/verifier';
import { CborError, decodeCbor } from './cbor.ts';

/** A body read into a value, or the message of its 400 (the profile's E001). */
export type BodyRead =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly message: string };

/**
 * UTF-8 that refuses what is not UTF-8 (P316). Fastify's `parseAs: 'string'` decoded leniently, each such byte
 * becoming U+FFFD, so a record signed over text holding U+FFFD was stored as verified from bytes that do not hold
 * it, where /verify (P220), the CLI (P232) and the console refuse them. One leading byte-order mark is dropped, as
 * /verify, the CLI and the console drop it (P382; RFC 8259 §8.1 lets a parser ignore it): the same bytes are one
 * JSON text to every reader. A second mark is no JSON whitespace and fails JSON.parse.
 */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The refusal of a member that reaches an object's prototype (`__proto__`, `constructor.prototype`): core's one rule,
 * which /verify, /verify/batch and the CLI apply too (P336, P381), so every reader names the same member the same way.
 */
export function prototypeRefusal(value: unknown): string | undefined {
  const at = prototypeMemberPath(value);
  return at === undefined ? undefined : `Request body is invalid: ${prototypeMemberMessage(at)}`;
}

/**
 * An `application/json` body read strictly (P2): bytes that are not UTF-8 (P316) and text with no single canonical
 * reading (a member name twice, a number with no finite value, a lone surrogate) are refused, and so are prototype
 * member names, as Fastify's own parser refuses them.
 */
export function readJsonBody(bytes: Uint8Array): BodyRead {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return { ok: false, message: 'Request body is not valid UTF-8' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: 'Request body is not valid JSON' };
  }
  const checked = checkParsedJson(text, value);
  if (!checked.ok)
    return { ok: false, message: `Request body has no canonical form: ${checked.error.message}` };
  // Walked every time, as the CBOR reader walks (P531): a search of the text for the names costs more.
  const refused = prototypeRefusal(value);
  return refused === undefined ? { ok: true, value } : { ok: false, message: refused };
}

/** An `application/cbor` body read strictly into plain JSON values, with the JSON reader's prototype rule. */
export function readCborBody(bytes: Uint8Array): BodyRead {
  let value: unknown;
  try {
    value = decodeCbor(bytes);
  } catch (error) {
    const reason = error instanceof CborError ? error.message : 'malformed CBOR';
    return { ok: false, message: `Request body is not valid CBOR: ${reason}` };
  }
  // The same refusal as a JSON body's: the wire must not decide what reaches a handler.
  const refused = prototypeRefusal(value);
  return refused === undefined ? { ok: true, value } : { ok: false, message: refused };
}
