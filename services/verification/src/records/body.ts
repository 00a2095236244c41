// Reads a /v2 POST body into a record: plain or wrapped, canonical JSON, id pattern, then its V2 schema.
// Implements D14 (body forms, ids), D15 (no floats: dcp-jcs-v1), SPEC.md "/v2 POST: schema before storage".
import { canonicalizeV2, type ProtocolProfile, recordSignatureRule, validateSchema } from '@proto/core';
import { badBody, notCanonical, recordIdInvalid, schemaInvalid } from './errors.ts';
import { isValidId } from './ids.ts';
import type { RecordRoute } from './kinds.ts';
import { aheadOfClockIssues } from './record-clock.ts';

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The member holding the record's own id, checked against the id pattern before the schema runs. */
function idField(route: RecordRoute): string | undefined {
  switch (route.id.type) {
    case 'field':
      return route.id.field;
    case 'agent':
    case 'vitality':
    case 'testament':
      return 'agent_id';
    case 'content':
      return undefined;
  }
}

/**
 * The record carried by `body`, validated for `route`'s kind; throws the HttpError to answer otherwise.
 * A body is the record itself or `{ "<kind>": record }` (a wrapper is recognised only as the sole member,
 * so a plain record can never be mistaken for one).
 */
export function readRecordBody(
  profile: ProtocolProfile,
  route: RecordRoute,
  body: unknown,
  options: { readonly administrative?: boolean; readonly now?: number } = {},
): JsonObject {
  const wrapperHint = `{ "${route.wrapperKeys[0]}": { … } }`;
  if (!isJsonObject(body)) {
    throw badBody(profile, `Request body must be a JSON object: the ${route.noun} itself or ${wrapperHint}`);
  }
  let record: unknown = body;
  let prefix = '';
  const keys = Object.keys(body);
  const key = keys.length === 1 ? keys[0] : undefined;
  if (key !== undefined && route.wrapperKeys.includes(key)) {
    record = body[key];
    prefix = `/${key}`;
    if (!isJsonObject(record)) {
      throw badBody(profile, `${prefix} must be a JSON object (the ${route.noun})`, [
        { path: prefix, message: 'must be object' },
      ]);
    }
  }
  const value = record as JsonObject;

  // D15 first, so that a fraction gets the canonical-JSON explanation rather than "must be integer".
  const canonical = canonicalizeV2(value);
  if (!canonical.ok) {
    const found = numberIssues(value, prefix);
    const details = found.length > 0 ? found : [{ path: prefix, message: canonical.error.message }];
    throw notCanonical(profile, route.kind, canonical.error.message, details);
  }

  const field = idField(route);
  if (field !== undefined && typeof value[field] === 'string' && !isValidId(value[field])) {
    throw recordIdInvalid(profile, field, value[field], `${prefix}/${field}`);
  }
  refuseInvalidIdLists(profile, route.kind, value, prefix);

  const verdict = validateSchema('v2', route.kind, value);
  const issues = verdict.valid
    ? []
    : options.administrative === true
      ? withoutMissingSignature(route.kind, value, verdict.issues)
      : verdict.issues;
  if (issues.length > 0) throw schemaInvalid(profile, route.kind, issues, prefix);
  // P207: a schema-valid record dated ahead of the clock has not happened yet, whoever writes it.
  const ahead = aheadOfClockIssues(route.kind, value, options.now ?? Date.now());
  if (ahead.length > 0) throw schemaInvalid(profile, route.kind, ahead, prefix);
  return value;
}

/**
 * P374: members that list ids, by kind. SPEC.md Limits puts every id of a /v2 record under the id pattern, and each
 * schema patterns its single ids, but `arbitrator_ids` items were any non-empty string: a key bound to a look-alike
 * agent id (a passport's `agent_id` has no pattern) was stored as a `verified` arbitrator of that name.
 */
const ID_LISTS: Readonly<Record<string, readonly string[]>> = {
  arbitration_resolution: ['arbitrator_ids'],
};

function refuseInvalidIdLists(
  profile: ProtocolProfile,
  kind: string,
  record: JsonObject,
  prefix: string,
): void {
  for (const member of ID_LISTS[kind] ?? []) {
    const list = record[member];
    if (!Array.isArray(list)) continue; // the schema says what is wrong
    for (const [index, item] of list.entries()) {
      if (typeof item === 'string' && !isValidId(item))
        throw recordIdInvalid(profile, `${prefix}/${member}/${index}`, item);
    }
  }
}

/**
 * An administrative write (operator token, P44) may leave out the signature member: nobody signed it, and
 * a placeholder would only pretend otherwise. Only that one issue is dropped; a present signature member
 * must still be well formed.
 */
function withoutMissingSignature<T extends { path: string; message: string }>(
  kind: string,
  record: JsonObject,
  issues: readonly T[],
): T[] {
  const member = recordSignatureRule(kind)?.signatureMember ?? 'composite_sig';
  if (Object.hasOwn(record, member)) return [...issues];
  const missing = `must have required property '${member}'`;
  return issues.filter((issue) => !(issue.path === '' && issue.message === missing));
}

const MAX_NUMBER_ISSUES = 20;
const MAX_WALK_DEPTH = 64;

const pointerSegment = (key: string | number): string =>
  String(key).replaceAll('~', '~0').replaceAll('/', '~1');

/** JSON pointers of the numbers dcp-jcs-v1 refuses (fractions, unsafe integers), for `details`. */
function numberIssues(value: unknown, prefix: string): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  const walk = (node: unknown, path: string, depth: number): void => {
    if (issues.length >= MAX_NUMBER_ISSUES || depth > MAX_WALK_DEPTH) return;
    if (typeof node === 'number') {
      if (!Number.isInteger(node)) {
        issues.push({ path, message: `${node} is not an integer (dcp-jcs-v1 allows integers only)` });
      } else if (!Number.isSafeInteger(node)) {
        issues.push({ path, message: `${node} is outside ±(2^53-1) (dcp-jcs-v1)` });
      }
      return;
    }
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) walk(item, `${path}/${i}`, depth + 1);
    } else if (isJsonObject(node)) {
      for (const [key, item] of Object.entries(node)) walk(item, `${path}/${pointerSegment(key)}`, depth + 1);
    }
  };
  walk(value, prefix, 0);
  return issues;
}
