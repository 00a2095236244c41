// The body of POST /emergency-tokens read from its raw bytes, on a verification thread (P576): the kit's strict
// readers (the bytes every other route's parser refuses are refused here with the same words) and the route's
// schema, `{signed_bundle: object}` and no other member, refused with the words the kit's schema errors carry
// (error-handler.ts: Ajv's message, P270's naming of an unknown member, P338's details).
import { type BodyRead, readCborBody, readJsonBody } from '@proto/service-kit/body-readers';

export type BodyFormat = 'json' | 'cbor';

/** One issue of a refused body, as the kit's error handler lists a schema error's (`details`). */
export interface RequestIssue {
  readonly path: string;
  readonly message: string;
  readonly keyword: string;
}

/** The 400 of a body that is no registration: its message, and the schema issue when that is the fault. */
export interface RequestRefusal {
  readonly ok: false;
  readonly message: string;
  readonly details: readonly RequestIssue[];
}

export type RegistrationRequest =
  | { readonly ok: true; readonly signedBundle: Record<string, unknown> }
  | RequestRefusal;

/** Longest member name an answer repeats: the name is the caller's text, and may be as long as the body. */
const MAX_NAMED_MEMBER = 64;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const NOT_AN_OBJECT = {
  problem: 'body must be object',
  issue: { path: '', message: 'must be object', keyword: 'type' },
} as const;

/** What the route's schema says of a parsed body: the first issue, worded as Ajv words it. */
function schemaIssue(body: unknown): { readonly problem: string; readonly issue: RequestIssue } | undefined {
  if (!isObject(body)) return NOT_AN_OBJECT;
  if (!Object.hasOwn(body, 'signed_bundle')) {
    const message = "must have required property 'signed_bundle'";
    return { problem: `body ${message}`, issue: { path: '', message, keyword: 'required' } };
  }
  for (const member of Object.keys(body)) {
    if (member === 'signed_bundle') continue;
    const named = JSON.stringify(
      member.length > MAX_NAMED_MEMBER ? `${member.slice(0, MAX_NAMED_MEMBER)}…` : member,
    );
    return {
      problem: `body has a member this service does not read: ${named}`,
      issue: {
        path: '',
        message: `must NOT have additional properties: ${named}`,
        keyword: 'additionalProperties',
      },
    };
  }
  if (!isObject(body['signed_bundle'])) {
    return {
      problem: 'body/signed_bundle must be object',
      issue: { path: '/signed_bundle', message: 'must be object', keyword: 'type' },
    };
  }
  return undefined;
}

/** The registering bundle of a body's bytes, or the 400's message (and the schema issue, when that is the fault). */
export function readRegistrationRequest(bytes: Uint8Array, format: BodyFormat): RegistrationRequest {
  const read: BodyRead = format === 'cbor' ? readCborBody(bytes) : readJsonBody(bytes);
  if (!read.ok) return { ok: false, message: read.message, details: [] };
  const found = schemaIssue(read.value);
  if (found === undefined) {
    return {
      ok: true,
      signedBundle: (read.value as { signed_bundle: Record<string, unknown> }).signed_bundle,
    };
  }
  return refusalOf(found);
}

function refusalOf(found: { readonly problem: string; readonly issue: RequestIssue }): RequestRefusal {
  return { ok: false, message: `Request body is invalid: ${found.problem}`, details: [found.issue] };
}

/** The refusal of a request with no body at all (the main thread's: there are no bytes to hand a thread). */
export const ABSENT_BODY: RequestRefusal = refusalOf(NOT_AN_OBJECT);
