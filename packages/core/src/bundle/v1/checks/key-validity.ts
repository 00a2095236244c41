// V1 check `key_validity`: the agent passport is active (here) and the RPR has not expired (a fact
// handed to time-checks.ts, evaluated at every finalize). PROTOCOL §5; D8. Errors AGENT_REVOKED, RPR_INVALID.
import { describe, prop, propRecord } from '../../json.ts';
import type { Ledger } from '../../ledger.ts';
import type { TimeDependentFacts } from '../../types.ts';
import type { ParsedV1 } from './parsed.ts';

/** Records the clock-free part of `key_validity`; returns the facts finalize checks against the clock. */
export function checkKeyValidity(ledger: Ledger, parsed: ParsedV1): TimeDependentFacts {
  const status = prop(propRecord(parsed.bundle, 'agent_passport'), 'status');
  if (status !== 'active') {
    ledger.fail(
      'key_validity',
      'AGENT_REVOKED',
      `Agent passport status is '${describe(status)}' (must be 'active')`,
    );
  }
  ledger.settle('key_validity');
  const expires = prop(propRecord(parsed.bundle, 'responsible_principal_record'), 'expires_at');
  return { signingKeys: [], rprExpiresAt: typeof expires === 'string' ? expires : null };
}
