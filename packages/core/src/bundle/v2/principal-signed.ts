// P490: whether a key of the RPR's `binding_keys` signed the V2 bundle. The RPR names no agent and no passport key,
// and D8 finds the bundle signature's kid in the passport's `keys` first; so when only passport keys signed, nothing
// the principal signed covers this passport, intent or trail: the RPR may be a public copy beside anyone's passport.
// A warning, not a failure: upstream SDK bundles are signed either way (PROTOCOL §4.6) and our verdicts agree with
// the SDKs. V2 only (D12). A kid compare: no parse, hash or canonical form of its own (issue 14).
import { describe } from '../json.ts';
import type { HalfOutcome } from './composite.ts';
import type { KeyRecord } from './keys.ts';

export interface BundleSigning {
  readonly classical: HalfOutcome;
  readonly pq: HalfOutcome;
  /** The keys whose halves of the bundle's composite signature were checked. */
  readonly usedKeys: readonly KeyRecord[];
}

/**
 * The warning for a bundle signature that held and that no key of the RPR's binding_keys made, or undefined.
 * A signature that failed says so itself; a kid listed in both passport and RPR counts as the principal's.
 */
export function agentKeysOnlyWarning(
  signing: BundleSigning,
  keys: readonly KeyRecord[],
  parties: { readonly humanId: unknown; readonly agentId: unknown },
): string | undefined {
  if (signing.classical === 'fail' || signing.pq === 'fail' || signing.usedKeys.length === 0)
    return undefined;
  for (const used of signing.usedKeys)
    for (const key of keys) if (key.source === 'rpr' && key.kid === used.kid) return undefined;
  const kids = signing.usedKeys.map((k) => describe(k.kid));
  return (
    `the bundle is signed by agent keys only (${kids.length === 1 ? 'kid' : 'kids'} ${kids.join(', ')}): no key ` +
    `of the responsible principal's binding_keys signed it, so nothing the principal (RPR human_id ` +
    `'${describe(parties.humanId)}') signed binds agent '${describe(parties.agentId)}''s passport ` +
    '(its RPR may be a copy)'
  );
}
