// Canonical JSON and content hashes for stored records: sorted keys, compact, `sha256:` + lowercase hex.
// Implements D3 (prefixed V2 hash form) and D14 (content ids); a local helper so the store does not depend on core.
import { createHash } from 'node:crypto';

/**
 * Serialises a JSON value with object keys sorted by UTF-16 code units (the order RFC 8785 and D2 use)
 * and no whitespace. Strings and numbers are written as JSON.stringify writes them, which matches
 * dcp-jcs-v1 for the integer-only records the /v2 endpoints accept (D15).
 * Throws a TypeError on values JSON cannot carry (undefined, functions, symbols, bigint, non-finite
 * numbers), so a record can never be stored under a hash of something other than what is kept.
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  writeCanonical(value, parts, '$');
  return parts.join('');
}

/** `sha256:` + hex SHA-256 of the canonical JSON of `value` (D3, D14). */
export function contentHash(value: unknown): string {
  return 'sha256:' + createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}

function writeCanonical(value: unknown, out: string[], path: string): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`not JSON: non-finite number at ${path}`);
      out.push(JSON.stringify(value));
      return;
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'object':
      break;
    default:
      throw new TypeError(`not JSON: ${typeof value} at ${path}`);
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      writeCanonical(value[i], out, `${path}[${i}]`);
    }
    out.push(']');
    return;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw new TypeError(`not JSON: non-plain object at ${path}`);
  }
  const entries = value as Record<string, unknown>;
  // Default sort compares UTF-16 code units, as RFC 8785 requires.
  const keys = Object.keys(entries).sort();
  out.push('{');
  let first = true;
  for (const key of keys) {
    const member = entries[key];
    if (member === undefined) continue; // JSON.stringify drops undefined members; so does the stored text
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(key), ':');
    writeCanonical(member, out, `${path}.${key}`);
  }
  out.push('}');
}
