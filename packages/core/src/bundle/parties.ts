// One agent, one principal, one intent per bundle: every artifact and audit entry must name the same
// agent_id, human_id and intent_id as the artifact that defines it (V1 and V2 alike). P246; D8, D11, PROTOCOL §5.1, §6.5, §10.
import type { ErrorName } from '../errors.ts';
import { describe, prop } from './json.ts';
import type { FindingCheck } from './types.ts';
import { FirstBreak } from './v2/checks/first-break.ts';

/** The four artifacts' payloads (V1: the artifacts themselves) and the audit entries of one bundle. */
export interface BundleParties {
  readonly rpr: unknown;
  readonly passport: unknown;
  readonly intent: unknown;
  readonly policyDecision: unknown;
  readonly entries: readonly unknown[];
}

export interface PartyMismatch {
  readonly check: FindingCheck;
  readonly code: ErrorName;
  readonly message: string;
}

interface Rule {
  /** The member every other place must repeat, and the artifact that defines it. */
  readonly field: string;
  readonly source: { readonly name: string; readonly value: (p: BundleParties) => unknown };
  readonly others: readonly {
    readonly name: string;
    readonly member: string;
    readonly of: keyof BundleParties;
  }[];
  readonly check: FindingCheck;
  readonly code: ErrorName;
}

/**
 * The agent is the passport's, the principal the RPR's (the passport's principal_binding_reference names it), the
 * intent the intent artifact's. Agent and principal mismatches are identity failures (E304, as an attestation
 * naming another agent or RPR is, P246); an entry or decision bound to another intent fails intent_hash (E204).
 */
const RULES: readonly Rule[] = [
  {
    field: 'agent_id',
    source: { name: 'agent_passport', value: (p) => prop(p.passport, 'agent_id') },
    others: [{ name: 'intent', member: 'agent_id', of: 'intent' }],
    check: 'key_validity',
    code: 'RPR_INVALID',
  },
  {
    field: 'human_id',
    source: { name: 'responsible_principal_record', value: (p) => prop(p.rpr, 'human_id') },
    others: [
      { name: 'agent_passport', member: 'principal_binding_reference', of: 'passport' },
      { name: 'intent', member: 'human_id', of: 'intent' },
    ],
    check: 'key_validity',
    code: 'RPR_INVALID',
  },
  {
    field: 'intent_id',
    source: { name: 'intent', value: (p) => prop(p.intent, 'intent_id') },
    others: [{ name: 'policy_decision', member: 'intent_id', of: 'policyDecision' }],
    check: 'intent_hash',
    code: 'INTENT_HASH_MISMATCH',
  },
];

/** Every place that names another agent, principal or intent than the bundle's own, one finding per kind. */
export function findPartyMismatches(parties: BundleParties): PartyMismatch[] {
  const out: PartyMismatch[] = [];
  for (const rule of RULES) {
    const expected = rule.source.value(parties);
    const named = `${rule.source.name} names ${describe(expected)}`;
    for (const other of rule.others) {
      const got = prop(parties[other.of], other.member);
      if (got !== expected) {
        out.push({
          check: rule.check,
          code: rule.code,
          message: `${rule.field} mismatch: ${other.name}.${other.member} is ${describe(got)}, ${named}`,
        });
      }
    }
    const entries = new FirstBreak();
    parties.entries.forEach((entry, i) => {
      const got = prop(entry, rule.field);
      if (got !== expected) entries.note(`audit_entries[${i}].${rule.field} is ${describe(got)}`);
    });
    const m = entries.message();
    if (m !== undefined)
      out.push({ check: rule.check, code: rule.code, message: `${rule.field} mismatch: ${m}, ${named}` });
  }
  return out;
}
