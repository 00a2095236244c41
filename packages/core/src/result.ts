// Result values for the core's public API: bad input is reported, never thrown.
// docs/architecture.md §2 ("typed result"), DECISIONS D2 (failures carry a code, never an exception).
import type { ErrorName } from './errors.ts';

export interface CoreError {
  /** Registry name of the error (rendered as PROTO-E### / DCP-E### by the profile). */
  readonly code: ErrorName;
  readonly message: string;
}

export type Result<T, E = CoreError> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: E };

export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

export function err<E = CoreError>(error: E): { readonly ok: false; readonly error: E } {
  return { ok: false, error };
}

export function coreError(code: ErrorName, message: string): CoreError {
  return { code, message };
}
