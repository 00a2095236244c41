// Reading a POST /verify body and the 400 answer for one that is not a verify request.
// SPEC.md "POST /verify" (signed_bundle required), DECISIONS D12 (error_details), docs/architecture.md §6.
import type { ProtocolProfile } from '@proto/core/verifier';
import {
  checkParsedJson,
  errorCode,
  prototypeMemberMessage,
  prototypeMemberPath,
} from '@proto/core/verifier';

export interface BadVerifyRequest {
  readonly verified: false;
  readonly errors: string[];
  readonly error_details: { code: string; check: 'request'; message: string; retryable: false }[];
}

export type ReadResult =
  | { readonly ok: true; readonly request: Record<string, unknown> }
  | { readonly ok: false; readonly message: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses JSON bytes; invalid UTF-8, invalid JSON or nesting too deep for the parser is a bad request,
 * and so is JSON with no single canonical reading (duplicate member names, 1e400, lone surrogates:
 * issue 12), which JSON.parse would otherwise resolve silently.
 */
export function parseJsonBody(
  bytes: Uint8Array,
): { ok: true; value: unknown } | { ok: false; message: string } {
  if (bytes.length === 0) return { ok: false, message: 'Request body is empty' };
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    // service-kit's readers' words (P591): the same bytes are refused alike on every route.
    return { ok: false, message: 'Request body is not valid UTF-8' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, message: 'Request body is nested too deeply' };
    return { ok: false, message: 'Invalid JSON body' };
  }
  const strict = checkParsedJson(text, value);
  if (!strict.ok)
    return { ok: false, message: `Request body has no canonical form: ${strict.error.message}` };
  // P336, P381: the rule of the CBOR decoder and service-kit's JSON parser. Walked every time (P531): the walk's
  // cost follows the members, not the text, and an elevated-10 body's three substring searches for the names cost
  // ×8 the walk (its base64 keeps the searches from skipping).
  const refused = prototypeMemberRefusal(value);
  if (refused !== undefined) return { ok: false, message: refused };
  return { ok: true, value };
}

/** The 400 message for a parsed body holding a member that reaches a prototype (P336, P381); undefined when none. */
export function prototypeMemberRefusal(value: unknown): string | undefined {
  const at = prototypeMemberPath(value);
  return at === undefined ? undefined : `Request body is invalid: ${prototypeMemberMessage(at)}`;
}

/**
 * A verify request is an object with an object `signed_bundle`, a string `public_key_b64` if any, object evidence if
 * any, and no other member; the verifier judges the bundle.
 */
export function checkVerifyRequest(value: unknown): ReadResult {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, message: 'Request body must be a JSON object' };
  }
  const request = value as Record<string, unknown>;
  const bundle = request['signed_bundle'];
  if (bundle === undefined) return { ok: false, message: 'Missing signed_bundle in body' };
  if (bundle === null || typeof bundle !== 'object' || Array.isArray(bundle)) {
    return { ok: false, message: 'signed_bundle must be an object' };
  }
  // P248: a wrongly typed member is the request's fault (400), as signed_bundle's is, not a verdict on the bundle.
  const key = request['public_key_b64'];
  if (key !== undefined && typeof key !== 'string') {
    return { ok: false, message: 'public_key_b64 must be a string when present' };
  }
  // P272: a member /verify does not read is the request's fault, not ignored: a typo (`anchor_reciept`) or a member a
  // client believes steers the verdict (`min_tier`) changed nothing while the caller read the verdict as given under
  // it. SPEC.md names no extension of the request; the bundle's own members keep their rules (uncovered, P149).
  for (const member in request) {
    if (!Object.hasOwn(request, member) || REQUEST_MEMBERS.has(member)) continue;
    return { ok: false, message: unknownMemberMessage(member) };
  }
  // P271: the evidence beside a bundle is an object (SPEC.md "Anchor receipt", "Jurisdiction attestation"). Another
  // type went on to the I/O checks, which skipped or failed it as if the evidence, not the request, were at fault.
  // `null` is no evidence (bundle-subject.ts `evidenceOf`), as before.
  for (const member of EVIDENCE_MEMBERS) {
    const evidence = request[member];
    if (evidence !== undefined && evidence !== null && !isPlainObject(evidence)) {
      return { ok: false, message: `${member} must be an object when present` };
    }
  }
  return { ok: true, request };
}

/** Every member a /verify request may carry (SPEC.md "POST /verify", D11, D19, D21). */
const REQUEST_MEMBERS: ReadonlySet<string> = new Set([
  'signed_bundle',
  'public_key_b64',
  'anchor_receipt',
  'jurisdiction_attestation',
]);

/** Longest member name the answer repeats: the name is the caller's text and may be as long as the body. */
const MAX_NAMED_MEMBER = 64;

function unknownMemberMessage(member: string): string {
  const named = member.length > MAX_NAMED_MEMBER ? `${member.slice(0, MAX_NAMED_MEMBER)}…` : member;
  return `/verify reads no member ${JSON.stringify(named)} (it reads ${[...REQUEST_MEMBERS].join(', ')})`;
}

/** The members a /verify request may carry as evidence beside its bundle (D19, D21). */
const EVIDENCE_MEMBERS = ['anchor_receipt', 'jurisdiction_attestation'] as const;

const isPlainObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The 400 body: `verified: false` with `errors` and `error_details` carrying E001 (D12). */
export function badVerifyRequest(profile: ProtocolProfile, message: string): BadVerifyRequest {
  return {
    verified: false,
    errors: [message],
    error_details: [
      { code: errorCode('BUNDLE_SCHEMA_INVALID', profile), check: 'request', message, retryable: false },
    ],
  };
}
