// The newest revocation list this browser has verified, kept in localStorage per issuer, jurisdiction and signing
// key (P172). A list the issuer really signed, replayed while inside its next_update, looks fresh by its own dates;
// only a memory of a newer one shows it went back (core's minListNumber rule: a lower list_number is a rollback).

const PREFIX = 'proto.revocation.newest:';

/**
 * The slot of a list. The key is part of it, so a list signed by some other key (possible only if whoever
 * answers also controls the key the page is told to trust) cannot move what was remembered for the real one.
 */
function slotOf(list) {
  return PREFIX + JSON.stringify([list.issuer, list.jurisdiction, list.signature?.public_key_b64]);
}

/** {list_number, updated_at} of the newest list verified for this slot, or undefined (none, or storage unusable). */
export function newestVerified(list) {
  try {
    const stored = JSON.parse(localStorage.getItem(slotOf(list)) ?? 'null');
    if (!Number.isSafeInteger(stored?.list_number) || stored.list_number < 0) return undefined;
    return {
      list_number: stored.list_number,
      updated_at: typeof stored.updated_at === 'string' ? stored.updated_at : undefined,
    };
  } catch {
    return undefined; // storage disabled or a value not written by this page: nothing remembered
  }
}

/**
 * Remembers `list` if it is newer than what was remembered. The caller passes only a list whose signature
 * verified and whose updated_at is not in the future: an unverified number could be anything, and a far-future
 * one the key signed would mark every genuine list after it as a rollback.
 */
export function rememberVerified(list) {
  if (!Number.isSafeInteger(list.list_number)) return;
  const newest = newestVerified(list);
  if (newest && newest.list_number >= list.list_number) return;
  try {
    localStorage.setItem(
      slotOf(list),
      JSON.stringify({ list_number: list.list_number, updated_at: list.updated_at }),
    );
  } catch {
    // storage full or disabled: the page still judges this list, it just cannot remember it
  }
}

/**
 * Forgets what was remembered for `list`'s slot, if that is still `listNumber` (another tab may have remembered a
 * newer one meanwhile, which this user was not asked about). Called only from the user's own confirmed click
 * (P179): nothing a server sends, neither a list nor a page script's synthetic click, reaches it.
 */
export function forgetVerified(list, listNumber) {
  try {
    if (newestVerified(list)?.list_number !== listNumber) return false;
    localStorage.removeItem(slotOf(list));
    return true;
  } catch {
    return false;
  }
}
