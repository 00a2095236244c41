// Canonical JSON written here, independently of core, so tests check core against a second implementation.
// PROTOCOL §1.1 / D2 (dcp-jcs-v1: sorted keys by UTF-16 code units, compact, integer-only numbers).
import { createHash } from 'node:crypto';

/**
 * dcp-jcs-v1 text of integer-only test data. For such data JSON.stringify's string and number forms are
 * the profile's; anything else (fractions, non-finite numbers, bigint, functions) throws, as test data
 * that the profile cannot carry is a bug in the test.
 */
export function jcs(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isSafeInteger(value)) throw new TypeError(`jcs: ${value} is not a safe integer`);
      return String(value);
    case 'object':
      break;
    default:
      throw new TypeError(`jcs: ${typeof value} has no JSON form`);
  }
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? 'null' : jcs(item))).join(',')}]`;
  // Default sort compares UTF-16 code units, as RFC 8785 and D2 require.
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, member]) => member !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${jcs(member)}`).join(',')}}`;
}

/** UTF-8 bytes of jcs(value): what a V2 hash or signature covers. */
export function jcsBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(jcs(value));
}

/** `sha256:` + hex SHA-256 of jcs(value) (D3). */
export function jcsSha256(value: unknown): string {
  return `sha256:${createHash('sha256').update(jcs(value), 'utf8').digest('hex')}`;
}
