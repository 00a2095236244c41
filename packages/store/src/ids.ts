// Guards for the identifiers the store writes: record ids, agent ids and record kind names.
// Implements SPEC.md Limits / D14 (`^[\w:.\-]{1,256}$` for every id), checked again here as a last line.
const ID_PATTERN = /^[\w:.-]{1,256}$/;
const KIND_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

export function isValidId(value: string): boolean {
  return ID_PATTERN.test(value);
}

/** Throws a TypeError naming the field: callers validate first (400), so reaching this is a bug. */
export function assertId(field: string, value: string): void {
  if (typeof value !== 'string' || !ID_PATTERN.test(value)) {
    throw new TypeError(`${field} must match ^[\\w:.\\-]{1,256}$`);
  }
}

export function assertKind(value: string): void {
  if (typeof value !== 'string' || !KIND_PATTERN.test(value)) {
    throw new TypeError('record kind must match ^[a-z][a-z0-9_]{0,63}$');
  }
}
