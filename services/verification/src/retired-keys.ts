// Whether a verified V2 bundle was signed by a key the /v2 key directory has since retired (P45: a newer verified
// passport dropped it or marked it other than active): said in a warning, never a failure. P282; D8, D12, D20.
import type { VerifyResponse } from '@proto/core/verifier';
import type { RetiredKeyBinding } from '@proto/store';
import type { BundleSubject } from './bundle-subject.ts';
import { directoryWarningsApply, NAMED_IN_A_WARNING as NAMED, withWarnings } from './directory-warnings.ts';
import { mayBeRetired } from './retired-kid-filter.ts';

/**
 * The retired bindings of some kids to some subjects (the records plugin's key directory). With `filter` (P410), a
 * shared filter of every retired kid: a bundle none of whose signing kids it holds is not looked up at all.
 */
export type RetiredKeyLookup = ((
  kids: readonly string[],
  subjects: readonly string[],
) => Promise<readonly RetiredKeyBinding[]>) & { readonly filter?: SharedArrayBuffer };

/** Whether a look-up could add a warning to `response`: a verified V2 answer with signing kids. */
export function retiredKeysApply(
  response: Pick<VerifyResponse, 'verified' | 'version'>,
  subject: BundleSubject,
): boolean {
  return directoryWarningsApply(response) && subject.signerKids.length > 0;
}

export function retiredKeyWarning(binding: RetiredKeyBinding): string {
  const by = binding.retiredBy === null ? '' : ` (${binding.retiredBy})`;
  return (
    `Key ${binding.kid} signed this bundle but was retired for ${binding.subject} at ${binding.retiredAt} by a later ` +
    `verified bundle${by} whose passport or RPR no longer lists it as active (key directory); this bundle's own ` +
    'passport or RPR, on which it was verified, still does'
  );
}

/**
 * `response` with a warning for each retired binding of the kids that signed it, to the bundle's agent or human.
 * Only a verified V2 answer is looked at: a false verdict needs no more reasons, and D12 gives V1 answers no
 * warnings. A directory that cannot answer adds nothing (logged): the warning is advice, not a check.
 */
export async function withRetiredKeyWarnings(
  response: VerifyResponse,
  subject: BundleSubject,
  lookup: RetiredKeyLookup,
  log?: { warn(obj: object, msg: string): void },
): Promise<VerifyResponse> {
  if (!retiredKeysApply(response, subject)) return response;
  if (lookup.filter !== undefined && !mayBeRetired(lookup.filter, subject.signerKids)) return response;
  const subjects = [subject.agentId, subject.humanId].filter((s): s is string => s !== undefined);
  let retired: readonly RetiredKeyBinding[];
  try {
    retired = await lookup(subject.signerKids, subjects);
  } catch (error) {
    log?.warn({ err: error }, 'the key directory could not be read for retired signing keys');
    return response;
  }
  if (retired.length === 0) return response;
  const warnings = retired.slice(0, NAMED).map(retiredKeyWarning);
  if (retired.length > NAMED)
    warnings.push(`… and ${retired.length - NAMED} more retired keys signed this bundle`);
  return withWarnings(response, warnings);
}
