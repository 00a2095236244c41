// A revocation list entry that reads as an id the list does not revoke (P456 for `proto revocation verify --agent`,
// P516 for POST /verify and `proto verify --revocation-list`, P572 for a signer's kid). A person reading the list takes that agent for revoked
// while every verifier, rightly, passes it (D20: a list revokes exactly the ids it names); the warning says so, in
// one wording for every reader. Skeletons are P455's (ASCII `I`/`1`/`l`, `0`/`O`, `m`/`rn` included: here there is a
// second id to compare with).
import { skeletonOf } from '../bundle/confusable-skeleton.ts';
import { spelledOut } from '../bundle/json.ts';
import type { RevocationEntry } from './types.ts';

/** At most this many entries are named as reading like one id; more are counted. */
const MAX_READ_ALIKE = 5;

/**
 * Entry indexes by skeleton, one map per entries array, built when a list is first asked about: a verifier asks the
 * same cached list on every request, so a request pays one skeleton of its id and one map look-up, not one skeleton
 * per entry.
 */
const indexes = new WeakMap<readonly RevocationEntry[], ReadonlyMap<string, readonly number[]>>();

function indexOf(entries: readonly RevocationEntry[]): ReadonlyMap<string, readonly number[]> {
  let index = indexes.get(entries);
  if (index === undefined) {
    const built = new Map<string, number[]>();
    entries.forEach((entry, i) => {
      if (typeof entry?.agent_id !== 'string') return;
      const skeleton = skeletonOf(entry.agent_id);
      const at = built.get(skeleton);
      if (at === undefined) built.set(skeleton, [i]);
      else at.push(i);
    });
    index = built;
    indexes.set(entries, index);
  }
  return index;
}

/** Who an id looked up in a list is: the bundle's agent, or a signer by its key's kid (P457, P517). */
export type LookedUpRole = 'agent' | 'signer kid';

/**
 * The warnings for `id`, which `list` does not revoke, when entries of the list read the same: each names the entry
 * and tells the reader to check which agent (or key) the issuer meant. Empty for an id the list revokes (that is a
 * failure, said elsewhere) and for a list with no look-alike of it.
 */
export function readAlikeRevocationWarnings(
  list: { readonly entries: readonly RevocationEntry[] },
  id: string,
  role: LookedUpRole = 'agent',
): string[] {
  const entries = list.entries;
  if (!Array.isArray(entries) || entries.length === 0) return [];
  const alike = indexOf(entries).get(skeletonOf(id));
  // An id the list revokes is in its own bucket: its revocation is the answer, not a look-alike.
  if (alike === undefined || alike.some((i) => (entries[i] as RevocationEntry).agent_id === id)) return [];
  const meant = role === 'agent' ? 'agent' : 'key';
  const warnings = alike.slice(0, MAX_READ_ALIKE).map((i) => {
    const listed = spelledOut((entries[i] as RevocationEntry).agent_id);
    return `${role} ${spelledOut(id)} is not in the list, but entries[${i}].agent_id "${listed}" reads the same: check which ${meant} the issuer meant (look-alike id)`;
  });
  if (alike.length > MAX_READ_ALIKE)
    warnings.push(`${alike.length - MAX_READ_ALIKE} more entries read as ${spelledOut(id)}`);
  return warnings;
}

/**
 * P516, P572: the warnings for every id a verifier looks up in `list` (the bundle's agent, then each signer's kid):
 * an entry reading as a signer's kid (`O` for one of its `0`s) is the same trap as one reading as the agent, since a
 * list revokes a key by naming its kid (P457). Nothing for an empty list; one skeleton per id otherwise.
 */
export function bundleReadAlikeRevocationWarnings(
  list: { readonly entries: readonly RevocationEntry[] },
  subject: { readonly agentId?: string | undefined; readonly signerKids?: readonly string[] | undefined },
): string[] {
  const agent = subject.agentId === undefined ? [] : readAlikeRevocationWarnings(list, subject.agentId);
  const kids = [...new Set(subject.signerKids ?? [])].filter((kid) => kid !== subject.agentId);
  return [...agent, ...kids.flatMap((kid) => readAlikeRevocationWarnings(list, kid, 'signer kid'))];
}
