// The errors the /v2 record routes answer, each with a code, in the kit's `{error:{code,message,…}}` shape.
// Implements D14 (400 bad id, 404 unknown, 409 conflict), D15 (float → 400 citing dcp-jcs-v1), D16 (409 moves).
import { CANONICALIZATION_PROFILE, type ProtocolProfile, type SchemaIssue } from '@proto/core';
import { type HttpError, httpError, protocolError } from '@proto/service-kit';
import { ID_PATTERN_TEXT } from './ids.ts';

/** 400 INVALID_ID: an id in the URL (path, `?version=`) that does not match `^[\w:.\-]{1,256}$` (D14). */
export function invalidId(where: string, value: unknown, pattern: string = ID_PATTERN_TEXT): HttpError {
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : `a ${typeof value}`;
  // `pattern`: the rule the value broke, when narrower than the id pattern (a kid, a version number), so a
  // caller is never told to match a pattern its value already matches.
  return httpError('INVALID_ID', `Invalid ${where}: ${shown} does not match ${pattern}`, {
    details: { field: where, pattern },
  });
}

/**
 * 400 E002 for an id in a record (or a transition body) outside `^[\w:.\-]{1,256}$` (P518): the id is part of the
 * artifact, as the schema-patterned ids are, whose failures are E002 too. P563: `details` is E002's documented form, a
 * list of `{path, message}` issues (as every schema failure answers), its one issue keeping the name these were
 * answered under before (`reason: INVALID_ID`), `field` and `pattern`. `path`: the id's JSON pointer in the body (the
 * wrapped form's prefix included). An id in the URL stays `invalidId`.
 */
export function recordIdInvalid(
  profile: ProtocolProfile,
  where: string,
  value: unknown,
  path: string = where.startsWith('/') ? where : `/${where}`,
): HttpError {
  const { message, details } = invalidId(where, value).toBody().error;
  return protocolError('ARTIFACT_SCHEMA_INVALID', profile, message, {
    statusCode: 400,
    details: [
      {
        path,
        message: `must match ${ID_PATTERN_TEXT}`,
        reason: 'INVALID_ID',
        ...(details as Record<string, unknown>),
      },
    ],
  });
}

/** 400 E002: the body is not a record of the route's kind; `details` lists each issue's path (D14). */
export function schemaInvalid(
  profile: ProtocolProfile,
  kind: string,
  issues: readonly SchemaIssue[],
  prefix = '',
): HttpError {
  const details = issues.map((issue) => ({ path: prefix + issue.path, message: issue.message }));
  const shown = details
    .slice(0, 5)
    .map((d) => `${d.path === '' ? '(root)' : d.path} ${d.message}`)
    .join('; ');
  const more = details.length > 5 ? `; … and ${details.length - 5} more` : '';
  return protocolError('ARTIFACT_SCHEMA_INVALID', profile, `Invalid ${kind}: ${shown}${more}`, {
    statusCode: 400,
    details,
  });
}

/**
 * 400 E002 for a record that has no dcp-jcs-v1 form (D15): a fraction, NaN/Infinity, an unsafe integer,
 * a lone surrogate, nesting deeper than 64. `reason` is the canonicaliser's message (it names the path).
 */
export function notCanonical(
  profile: ProtocolProfile,
  kind: string,
  reason: string,
  details: readonly { path: string; message: string }[],
): HttpError {
  return protocolError(
    'ARTIFACT_SCHEMA_INVALID',
    profile,
    `Invalid ${kind}: records must be canonical JSON under ${CANONICALIZATION_PROFILE}, which allows integers only ` +
      `(write fractions as integers 0–1000): ${reason}`,
    { statusCode: 400, details },
  );
}

export function badBody(profile: ProtocolProfile, message: string, details?: unknown): HttpError {
  return protocolError('ARTIFACT_SCHEMA_INVALID', profile, message, {
    statusCode: 400,
    ...(details === undefined ? {} : { details }),
  });
}

export function notFound(message: string): HttpError {
  return httpError('NOT_FOUND', message);
}

export function conflict(message: string, details?: Record<string, unknown>): HttpError {
  return httpError('CONFLICT', message, details === undefined ? {} : { details });
}
