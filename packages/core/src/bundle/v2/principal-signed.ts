// P490: whether a key of the RPR's `binding_keys` signed the V2 bundle. The RPR names no agent and no passport key,
// and D8 finds the bundle signature's kid in the passport's `keys` first; so when only passport keys signed, nothing
// the principal signed covers this passport, intent or trail: the RPR may be a public copy beside anyone's passport.
// A warning, not a failure: upstream SDK bundles are signed either way (PROTOCOL §4.6) and our verdicts agree with
// the SDKs by default; an operator's policy may require the principal's signature (P502). V2 only (D12). A kid compare: no parse, hash or canonical form of its own (issue 14).
import { describe } from '../json.ts';
import type { HalfOutcome } from './composite.ts';
import type { KeyRecord } from './keys.ts';

export interface BundleSigning {
  readonly classical: HalfOutcome;
  readonly pq: HalfOutcome;
  /** The keys whose halves of the bundle's composite signature were checked. */
  readonly usedKeys: readonly KeyRecord[];
}

/** The kids of a bundle signature that held and that no key of the RPR's binding_keys made, or undefined. */
function agentOnlyKids(signing: BundleSigning, keys: readonly KeyRecord[]): string[] | undefined {
  if (signing.classical === 'fail' || signing.pq === 'fail' || signing.usedKeys.length === 0)
    return undefined;
  for (const used of signing.usedKeys)
    for (const key of keys) if (key.source === 'rpr' && key.kid === used.kid) return undefined;
  return signing.usedKeys.map((k) => describe(k.kid));
}

/**
 * What a bundle signature that held and that no key of the RPR's binding_keys made is told, or undefined: P490's
 * warning, or, when the operator's policy requires the principal's signature (P502), the failure's message. A
 * signature that failed says so itself; a kid listed in both passport and RPR counts as the principal's.
 */
export function agentKeysOnly(
  signing: BundleSigning,
  keys: readonly KeyRecord[],
  parties: { readonly humanId: unknown; readonly agentId: unknown },
): { readonly warning: string; readonly failure: string } | undefined {
  const kids = agentOnlyKids(signing, keys);
  if (kids === undefined) return undefined;
  const signed = `${kids.length === 1 ? 'kid' : 'kids'} ${kids.join(', ')}`;
  const principal = `RPR human_id '${describe(parties.humanId)}'`;
  const agent = `agent '${describe(parties.agentId)}'`;
  return {
    warning:
      `the bundle is signed by agent keys only (${signed}): no key of the responsible principal's binding_keys ` +
      `signed it, so nothing the principal (${principal}) signed binds ${agent}'s passport (its RPR may be a copy)`,
    failure:
      `Policy requires the responsible principal's signature (require_principal_signature) but no key of the ` +
      `RPR's binding_keys signed the bundle (${signed}; ${principal}, ${agent})`,
  };
}
