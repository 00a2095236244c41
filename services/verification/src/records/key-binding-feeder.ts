// Feeds the key directory from verified V2 bundles, before their answer (P469, bounded by APPLY_WAIT_MS). What the
// bundle says about its keys arrives ready-made from the verification worker (records/bundle-key-bindings.ts), so no body is kept, copied or
// re-parsed here, for JSON and CBOR alike (issue 14 item 1, P34); the store applies it with rotation (P45).
import { decodeBase64Strict } from '@proto/core';
import type { PassportKeys, Store } from '@proto/store';
import type { BundleParties } from './bundle-key-bindings.ts';
import { type ForeignPassport, partyContinuity, settledWithin } from './party-continuity.ts';
import type { KeyBinding, KeyBindingLookup } from './write-authorization.ts';

/**
 * A passport the worker handed over in full within its refresh period: only its evidence travels (P229), and the
 * feeder answers it from the passports it applied.
 */
export interface KnownPassport {
  readonly evidence: string;
}

/** What the verify path hands over once its answer is known: the final verdict and what the worker read. */
export interface VerifiedBundleEvent {
  readonly verified: boolean;
  readonly version: string;
  /** Its `evidence` is the hash of a verified bundle with these keys, the same for every later one (P123). */
  readonly passport: PassportKeys | KnownPassport;
}

const carriesKeys = (passport: PassportKeys | KnownPassport): passport is PassportKeys =>
  'bindings' in passport;

/** How long a passport applied here is not applied again: a re-proof refreshes its bindings' `seen_at` (P174). */
export const DEFAULT_REAPPLY_AFTER_MS = 60 * 60 * 1000;

/**
 * Longest the verify path waits for a passport's keys to be applied before it answers anyway (P469): a store that
 * is slow or down delays a first-seen passport's answer by at most this; the write then lands after the answer.
 */
export const APPLY_WAIT_MS = 1_000;

/** The feed the verify path awaits, and what the directory holds for a bundle's parties (P501, P503, P555). */
export type KeyDirectoryFeed = ((event: VerifiedBundleEvent) => Promise<boolean>) & {
  /**
   * Which of a verified bundle's parties have live keys here none of which signed it (party-continuity.ts). Asked
   * before the bundle's passport is fed, so it reads what the directory held before this bundle, as P45 did.
   */
  readonly foreignParties?: (
    parties: BundleParties,
  ) => ForeignPassport | undefined | Promise<ForeignPassport | undefined>;
};

/** One passport applied (or being applied) by this process. */
interface Applied {
  readonly at: number;
  /** Settles with the application's outcome (true: stored), whatever the caller's wait. */
  done: Promise<boolean>;
  settled: boolean;
}

/**
 * Returns the hook the verify path calls after a verdict, and awaits before it answers: a promise that settles true
 * once the passport's keys are applied (or were recently), false when the event applies nothing, the write failed,
 * or it took longer than `applyWaitMs` (it goes on, and the bindings are handed over again from a cache hit).
 * Passport keys applied within `reapplyAfterMs` cost one Map look-up: they are known by their evidence, which the
 * worker keeps for each passport (P123). Past that they are applied again, so the directory sees that the passport
 * is still in use and a pruned binding comes back (P174). Awaited (P469), so that a retirement this bundle makes is
 * in this process's filter of retired kids, and GET /v2/keys shows it, before the bundle's answer goes out. A
 * passport still being applied when the same one arrives again is waited for too (within `applyWaitMs`). Each
 * application drops the cached live kids of its agent and human (P555), whatever its outcome.
 */
export function keyBindingFeeder(
  store: Store,
  log: { warn(obj: object, msg: string): void },
  seenLimit = 10_000,
  reapplyAfterMs = DEFAULT_REAPPLY_AFTER_MS,
  onRetired?: (kids: readonly string[]) => void,
  applyWaitMs = APPLY_WAIT_MS,
): KeyDirectoryFeed {
  const seen = new Map<string, Applied>();
  const continuity = partyContinuity(store.keys, log, applyWaitMs);
  const apply = async (passport: PassportKeys, hash: string): Promise<boolean> => {
    try {
      const outcome = await store.keys.applyPassport(passport);
      // P410, P469: the kids this process retired are in its filter at once, without waiting for a refresh.
      if (outcome.retiredKids.length > 0) onRetired?.(outcome.retiredKids);
      return true;
    } catch (error) {
      seen.delete(hash);
      log.warn({ err: error }, 'key directory: could not store the bindings of a verified bundle');
      return false;
    } finally {
      continuity.forget([passport.agentId, passport.humanId, passport.rprHash]);
    }
  };
  const bounded = (entry: Applied): Promise<boolean> =>
    entry.settled ? entry.done : settledWithin(entry.done, applyWaitMs, false);
  const feed = async (event: VerifiedBundleEvent): Promise<boolean> => {
    if (!event.verified || !event.version.startsWith('2')) return false;
    const hash = event.passport.evidence;
    const at = Date.now();
    const known = seen.get(hash);
    if (known !== undefined && at - known.at < reapplyAfterMs) return known.settled ? true : bounded(known);
    // Not applied lately and no keys to apply: the worker hands them over in full within its refresh period.
    const passport = event.passport;
    if (!carriesKeys(passport)) return false;
    if (seen.size >= seenLimit) seen.clear();
    const entry = { at, settled: false } as Applied;
    entry.done = apply(passport, hash).finally(() => {
      entry.settled = true;
    });
    seen.set(hash, entry);
    return bounded(entry);
  };
  return Object.assign(feed, { foreignParties: continuity.foreignParties });
}

/**
 * The key directory as the write policy reads it, from the store; `maxKeyAgeDays`: the verifier's maximum key age,
 * applied to each key's own `created_at` at every look-up (P230).
 */
export function storeKeyLookup(
  store: Store,
  authorisedLimit = 10_000,
  maxKeyAgeDays?: number,
): KeyBindingLookup {
  const authorised = new Set<string>();
  const ageLimit = maxKeyAgeDays === undefined ? {} : { maxKeyAgeDays };
  return {
    async lookup(kid) {
      const rows = await store.keys.lookup(kid, ageLimit);
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
    currentPrincipal: (agentId) => store.keys.currentPrincipal(agentId),
    markAuthorised: async (kid, subjects) => {
      // A binding that authorised once is never pruned (P174), so one confirmation per pair is enough.
      const fresh = subjects.filter((s) => !authorised.has(`${kid}\n${s}`));
      if (fresh.length === 0) return true;
      if (!(await store.keys.markAuthorised(kid, fresh))) return false;
      if (authorised.size >= authorisedLimit) authorised.clear();
      for (const s of fresh) authorised.add(`${kid}\n${s}`);
      return true;
    },
  };
}
