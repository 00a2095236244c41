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

/** Printable ASCII, spaces included: the text of nearly every value a message quotes, written as it is. */
const PRINTABLE = /^[\x20-\x7e]*$/;

/**
 * `text` with every code point outside printable ASCII written `⟨U+XXXX⟩` (P388): two values a message compares
 * that differ only in a zero-width character, a bidi control, a decomposed accent or a look-alike letter read the
 * same when written raw ("agent_id mismatch: … is agent-1, … names agent-1").
 */
export function spelledOut(text: string): string {
  if (PRINTABLE.test(text)) return text;
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    out += cp >= 0x20 && cp <= 0x7e ? ch : `⟨U+${cp.toString(16).toUpperCase().padStart(4, '0')}⟩`;
  }
  return out;
}

/** Text for messages: strings cut to 100 chars and spelled out (P388), other values by type. */
export function describe(value: unknown): string {
  if (typeof value === 'string')
    return value.length > 100 ? `${spelledOut(value.slice(0, 100))}…` : spelledOut(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'undefined' ? 'absent' : `a ${typeof value}`;
}
