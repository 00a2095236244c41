// Defensive readers for untrusted JSON values: own properties only, no coercion, no throwing on type.
// CONTRIBUTING "never throws on bad input"; used by every check before (and after) schema validation.

export type JsonRecord = Readonly<Record<string, unknown>>;

/** A non-null, non-array object. */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own member of an object (never inherited: `constructor`, `__proto__` read as absent). */
export function prop(value: unknown, key: string): unknown {
  return isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

export function propString(value: unknown, key: string): string | undefined {
  const v = prop(value, key);
  return typeof v === 'string' ? v : undefined;
}

export function propRecord(value: unknown, key: string): JsonRecord | undefined {
  const v = prop(value, key);
  return isRecord(v) ? v : undefined;
}

export function propArray(value: unknown, key: string): readonly unknown[] | undefined {
  const v = prop(value, key);
  return Array.isArray(v) ? v : undefined;
}

/** Text for messages: strings as-is (cut to 100 chars), other values by type. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return value.length > 100 ? `${value.slice(0, 100)}…` : value;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'undefined' ? 'absent' : `a ${typeof value}`;
}
