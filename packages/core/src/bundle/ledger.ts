// Collects check statuses, findings and warnings while a bundle is analysed.
// DECISIONS D12 (check values pass/fail/absent/skipped; a check with a finding is `fail`).
import type { ErrorName } from '../errors.ts';
import type { AnalysisFinding, CheckName, CheckStatus, FindingCheck } from './types.ts';

/** At most this many findings per check are kept; the rest are summarised in one message. */
const MAX_FINDINGS_PER_CHECK = 20;

export class Ledger {
  private readonly statuses = new Map<CheckName, CheckStatus>();
  private readonly perCheck = new Map<FindingCheck, number>();
  readonly findings: AnalysisFinding[] = [];
  readonly warnings: string[] = [];
  /**
   * The warnings already given, for the check that keeps each once: scanning `warnings` instead cost the
   * square of their number, and a signer decides how many there are (one per revoked key listed, P149).
   */
  private readonly warned = new Set<string>();

  fail(check: FindingCheck, code: ErrorName, message: string): void {
    if (isCheckName(check)) this.statuses.set(check, 'fail');
    const n = (this.perCheck.get(check) ?? 0) + 1;
    this.perCheck.set(check, n);
    if (n <= MAX_FINDINGS_PER_CHECK) this.findings.push({ check, code, message });
    else if (n === MAX_FINDINGS_PER_CHECK + 1) {
      this.findings.push({ check, code, message: `further ${check} failures omitted` });
    }
  }

  /** Sets a status unless the check has already failed (a failure is never overwritten). */
  set(check: CheckName, status: CheckStatus): void {
    if (this.statuses.get(check) !== 'fail') this.statuses.set(check, status);
  }

  /** `pass` unless the check failed (or was already given another status). */
  settle(check: CheckName): void {
    if (!this.statuses.has(check)) this.statuses.set(check, 'pass');
  }

  status(check: CheckName): CheckStatus | undefined {
    return this.statuses.get(check);
  }

  failed(check: FindingCheck): boolean {
    return (this.perCheck.get(check) ?? 0) > 0;
  }

  warn(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.warnings.push(message);
  }

  /** The statuses in `order`; checks never reached are `skipped`. */
  checks(order: readonly CheckName[]): Partial<Record<CheckName, CheckStatus>> {
    const out: Partial<Record<CheckName, CheckStatus>> = {};
    for (const check of order) out[check] = this.statuses.get(check) ?? 'skipped';
    return out;
  }
}

/** SPEC.md's six V2 keys, then D12's extras, then the service placeholders. */
export const V2_CHECK_ORDER: readonly CheckName[] = Object.freeze([
  'schema',
  'classical_sig',
  'pq_sig',
  'manifest_integrity',
  'hash_chain',
  'session_nonce',
  'artifact_sigs',
  'intent_hash',
  'checkpoints',
  'key_validity',
  'revocation',
  'anchor',
  'attestation',
]);

/** D11's V1 checklist, then the service placeholders. */
export const V1_CHECK_ORDER: readonly CheckName[] = Object.freeze([
  'schema',
  'classical_sig',
  'bundle_hash',
  'merkle_root',
  'intent_hash',
  'hash_chain',
  'key_validity',
  'revocation',
  'anchor',
  'attestation',
]);

/** Every check either version reports: the two lists above, so a name is added in one place (P224). */
const CHECK_NAMES: ReadonlySet<string> = new Set<CheckName>([...V2_CHECK_ORDER, ...V1_CHECK_ORDER]);

export function isCheckName(value: unknown): value is CheckName {
  return typeof value === 'string' && CHECK_NAMES.has(value);
}
