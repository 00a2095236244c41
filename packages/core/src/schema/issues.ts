// Turns Ajv's error objects into short, readable schema issues (path + message) and renders them.
// PROTOCOL §9.2 (upstream reports "<instancePath> <message>"), DECISIONS D15 (a float gets a clear message).
import type { ErrorObject } from 'ajv';

export interface SchemaIssue {
  /** JSON pointer of the offending value, e.g. `/bundle/manifest/audit_count` (`''` = the document). */
  readonly path: string;
  /** Readable reason, e.g. `must be integer`. */
  readonly message: string;
}

interface Draft {
  readonly path: string;
  readonly message: string;
  readonly keyword: string;
  readonly params: Record<string, unknown>;
}

const q = (value: unknown): string => JSON.stringify(value) ?? String(value);

function messageOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `must NOT have additional property '${String(params['additionalProperty'])}'`;
    case 'enum':
      return Array.isArray(params['allowedValues'])
        ? `must be one of: ${params['allowedValues'].map(q).join(', ')}`
        : (error.message ?? 'must be one of the allowed values');
    case 'const':
      return `must be equal to ${q(params['allowedValue'])}`;
    case 'oneOf':
      return params['passingSchemas'] === null
        ? 'must match exactly one of the allowed shapes'
        : 'must match exactly one of the allowed shapes (matches several)';
    case 'anyOf':
      return 'must match one of the allowed shapes';
    default:
      return error.message ?? `fails the "${error.keyword}" rule`;
  }
}

const within = (path: string, root: string): boolean => path === root || path.startsWith(`${root}/`);

/**
 * Ajv reports a failed `anyOf`/`oneOf` as the failures of every branch followed by a summary. For the
 * nullable values (`anyOf: [X, {type: null}]`) that is noise: "must be null" plus X's reasons. This keeps
 * X's reasons only, or folds two type errors into "must be string or null". Branch errors are the run of
 * errors at or below the summary's path emitted just before it (each anyOf/oneOf in our schemas is the only
 * keyword of its subschema).
 */
export function toSchemaIssues(errors: readonly ErrorObject[]): SchemaIssue[] {
  const out: Draft[] = [];
  for (const error of errors) {
    const draft: Draft = {
      path: error.instancePath,
      message: messageOf(error),
      keyword: error.keyword,
      params: error.params as Record<string, unknown>,
    };
    if (error.keyword !== 'anyOf' && error.keyword !== 'oneOf') {
      out.push(draft);
      continue;
    }
    let start = out.length;
    while (start > 0 && within(out[start - 1]!.path, draft.path)) start -= 1;
    const branches = out.splice(start);
    const isNull = (d: Draft) => d.keyword === 'type' && d.path === draft.path && d.params['type'] === 'null';
    if (error.keyword === 'anyOf' && branches.some(isNull)) {
      const rest = branches.filter((d) => !isNull(d));
      const only = rest.length === 1 ? rest[0] : undefined;
      if (only !== undefined && only.keyword === 'type' && only.path === draft.path) {
        out.push({ ...only, message: `must be ${String(only.params['type'])} or null` });
      } else {
        out.push(...rest);
      }
      continue;
    }
    out.push(...branches, draft);
  }
  const seen = new Set<string>();
  const issues: SchemaIssue[] = [];
  for (const { path, message } of out) {
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path, message });
  }
  return issues;
}

/** `"/a/b must be integer; (root) must have required property 'x'; … and 3 more"`. */
export function formatSchemaIssues(issues: readonly SchemaIssue[], limit = 10): string {
  const max = Number.isInteger(limit) && limit > 0 ? limit : 1;
  const shown = issues.slice(0, max).map((i) => `${i.path === '' ? '(root)' : i.path} ${i.message}`);
  const more = issues.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; … and ${more} more` : shown.join('; ');
}
