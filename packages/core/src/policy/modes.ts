// Verification modes: the list, a type guard, and what each mode demands of a composite signature.
// SPEC.md "Verification modes"; DECISIONS D9 (mode rules; pq_only is ML-DSA only).
import type { VerificationMode } from '../bundle/types.ts';

export const VERIFICATION_MODES: readonly VerificationMode[] = Object.freeze([
  'classical_only',
  'hybrid_preferred',
  'hybrid_required',
  'pq_only',
]);

export function isVerificationMode(value: unknown): value is VerificationMode {
  return typeof value === 'string' && (VERIFICATION_MODES as readonly string[]).includes(value);
}

/** What a mode requires of the two halves of a composite signature (D9). */
export interface ModeRequirements {
  /** The Ed25519 half is verified and must pass. */
  readonly classical: 'required' | 'ignored';
  /** The ML-DSA half: required, verified when present, or not evaluated at all. */
  readonly pq: 'required' | 'if_present' | 'ignored';
}

export const MODE_REQUIREMENTS: Readonly<Record<VerificationMode, ModeRequirements>> = Object.freeze({
  classical_only: { classical: 'required', pq: 'ignored' },
  hybrid_preferred: { classical: 'required', pq: 'if_present' },
  hybrid_required: { classical: 'required', pq: 'required' },
  pq_only: { classical: 'ignored', pq: 'required' },
});
