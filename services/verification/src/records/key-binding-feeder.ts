// Feeds the key directory from verified V2 bundles, off the request path. What the bundle says about its keys
// arrives ready-made from the verification worker (records/bundle-key-bindings.ts), so no body is kept, copied or
// re-parsed here, for JSON and CBOR alike (issue 14 item 1, P34); the store applies it with rotation (P45).
import { decodeBase64Strict } from '@proto/core';
import type { PassportKeys, Store } from '@proto/store';
import type { KeyBinding, KeyBindingLookup } from './write-authorization.ts';

/** What the verify path hands over once its answer is known: the final verdict and what the worker read. */
export interface VerifiedBundleEvent {
  readonly verified: boolean;
  readonly version: string;
  /** Its `evidence` is the hash of a verified bundle with these keys, the same for every later one (P123). */
  readonly passport: PassportKeys;
}

/**
 * Returns the hook the verify path calls after a verdict: a promise that settles true once the passport's keys
 * are applied (or were before), false when the event applies nothing or the write failed. The write is deferred
 * with setImmediate, and passport keys applied before cost one Set look-up: they are known by their evidence,
 * which the worker keeps for each passport (P123), so another bundle with the same passport applies nothing new.
 */
export function keyBindingFeeder(
  store: Store,
  log: { warn(obj: object, msg: string): void },
  seenLimit = 10_000,
): (event: VerifiedBundleEvent) => Promise<boolean> {
  const seen = new Set<string>();
  return async (event) => {
    if (!event.verified || !event.version.startsWith('2')) return false;
    const hash = event.passport.evidence;
    if (seen.has(hash)) return true;
    if (seen.size >= seenLimit) seen.clear();
    seen.add(hash);
    await new Promise((resolve) => setImmediate(resolve));
    try {
      await store.keys.applyPassport(event.passport);
      return true;
    } catch (error) {
      seen.delete(hash);
      log.warn({ err: error }, 'key directory: could not store the bindings of a verified bundle');
      return false;
    }
  };
}

/** The key directory as the write policy reads it, from the store. */
export function storeKeyLookup(store: Store): KeyBindingLookup {
  return {
    async lookup(kid) {
      const rows = await store.keys.lookup(kid);
      const first = rows[0];
      if (first === undefined) return undefined;
      const publicKey = decodeBase64Strict(first.publicKeyB64);
      if (publicKey === undefined) return undefined;
      const binding: KeyBinding = {
        kid,
        alg: first.alg,
        publicKey,
        subjects: rows.map((r) => r.subject),
        evidence: first.evidence,
      };
      return binding;
    },
  };
}
