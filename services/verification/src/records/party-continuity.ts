// P555 (refines P501, P503): whether a verified V2 bundle's agent, or its RPR's human, has live keys in the key
// directory none of which signed the bundle's passport (or RPR): P45's continuity, read from what the directory
// holds, not from what this process learnt while applying the bundle's passport. That outcome was lost when the
// application took longer than APPLY_WAIT_MS (a slow store: the answer went out first) and when the feeder's map of
// applied passports was cleared (at 10,000), until the passport was handed over in full again; the directory's
// live kids are there either way. Read through a small cache, so the common path costs a Map look-up.
import type { Store } from '@proto/store';
import { LRUCache } from 'lru-cache';
import type { BundleParties } from './bundle-key-bindings.ts';

/** An id of a bundle and its live keys here, none of which signed the bundle's artifact that names it. */
export interface ForeignParty {
  readonly id: string;
  readonly kids: readonly string[];
}

/**
 * A bundle whose passport names an agent whose live passport keys here did not sign it (P501), or whose RPR names a
 * human whose live binding keys here did not sign it (P503): /verify names the id and the kids bound to it.
 */
export interface ForeignPassport {
  readonly agent?: ForeignParty;
  readonly human?: ForeignParty;
  /** P600: the agent first bound here under the bundle's RPR, when that is not the bundle's agent (a copied RPR). */
  readonly rprAgent?: string;
}

/** What is read per id: an agent's passport kids, a human's binding kids, or the agent first bound under an RPR hash. */
type Role = 'passport' | 'principal' | 'rpr';

/**
 * How long an id's live kids are taken as read. Past it the next bundle naming the id is answered from the old
 * reading while a new one is made (never waited for); this process's own applications drop the reading at once, so
 * the only lag is another replica's binding or rotation, at most this long (and an id bound nowhere before it).
 */
export const LIVE_KIDS_TTL_MS = 5_000;

/** Ids whose live kids are kept (least recently used go first): an id dropped costs one read, never a warning. */
export const LIVE_KIDS_MAX_IDS = 10_000;

export interface PartyContinuity {
  /**
   * The parties of `parties` that are foreign to the directory: at once when both readings are cached, else once
   * the store has answered, or undefined past `waitMs` (the reading goes on and serves the next bundle) or when the
   * store cannot answer (logged: the warning is advice, not a check).
   */
  foreignParties(parties: BundleParties): ForeignPassport | undefined | Promise<ForeignPassport | undefined>;
  /** This process changed these ids' bindings (an applied passport): their next reading comes from the store. */
  forget(ids: readonly (string | undefined)[]): void;
}

/** `promise`'s value, or `fallback` once `ms` have passed first. */
export async function settledWithin<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const cacheKey = (role: Role, id: string) => `${role}\n${id}`;

/** An id with live kids none of which is `signer`: first come (no kids) is no foreign party, as in P45. */
const foreignParty = (id: string, live: readonly string[], signer: string | undefined) =>
  live.length === 0 || (signer !== undefined && live.includes(signer)) ? undefined : { id, kids: live };

const foreignPassportOf = (
  agent: ForeignParty | undefined,
  human: ForeignParty | undefined,
  rprAgent: string | undefined,
): ForeignPassport | undefined =>
  agent === undefined && human === undefined && rprAgent === undefined
    ? undefined
    : {
        ...(agent === undefined ? {} : { agent }),
        ...(human === undefined ? {} : { human }),
        ...(rprAgent === undefined ? {} : { rprAgent }),
      };

export function partyContinuity(
  keys: Pick<Store['keys'], 'liveKids' | 'rprAgent'>,
  log: { warn(obj: object, msg: string): void },
  waitMs: number,
  ttlMs = LIVE_KIDS_TTL_MS,
  maxIds = LIVE_KIDS_MAX_IDS,
): PartyContinuity {
  const cache = new LRUCache<string, readonly string[]>({
    max: maxIds,
    ttl: ttlMs,
    // A stale reading stays to be served while the next one is made (fetch with allowStale).
    noDeleteOnStaleGet: true,
    fetchMethod: async (key) => {
      const cut = key.indexOf('\n');
      const role = key.slice(0, cut) as Role;
      const id = key.slice(cut + 1);
      if (role !== 'rpr') return keys.liveKids(id, role);
      const first = await keys.rprAgent(id);
      return first === undefined ? [] : [first];
    },
  });
  const read = async (key: string): Promise<readonly string[] | undefined> => {
    try {
      return await cache.fetch(key, { allowStale: true });
    } catch {
      // forget() aborts a reading in flight (it may predate this process's application): read once more.
      try {
        return await cache.fetch(key, { allowStale: true });
      } catch (error) {
        log.warn({ err: error }, 'the key directory could not be read for the live keys of a bundle’s party');
        return undefined;
      }
    }
  };
  const liveKids = (role: Role, id: string) => {
    const key = cacheKey(role, id);
    return cache.get(key) ?? read(key);
  };
  return {
    foreignParties(parties) {
      const agentKids = liveKids('passport', parties.agentId);
      const humanKids = parties.humanId === undefined ? [] : liveKids('principal', parties.humanId);
      const rprAgents = parties.rprHash === undefined ? [] : liveKids('rpr', parties.rprHash);
      const decide = (
        agent: readonly string[] | undefined,
        human: readonly string[] | undefined,
        rpr: readonly string[] | undefined,
      ) =>
        foreignPassportOf(
          agent === undefined ? undefined : foreignParty(parties.agentId, agent, parties.passportSignerKid),
          human === undefined || parties.humanId === undefined
            ? undefined
            : foreignParty(parties.humanId, human, parties.principalSignerKid),
          rpr?.find((first) => first !== parties.agentId),
        );
      if (
        !(agentKids instanceof Promise) &&
        !(humanKids instanceof Promise) &&
        !(rprAgents instanceof Promise)
      )
        return decide(agentKids, humanKids, rprAgents);
      return settledWithin(
        Promise.all([agentKids, humanKids, rprAgents]).then(([agent, human, rpr]) =>
          decide(agent, human, rpr),
        ),
        waitMs,
        undefined,
      );
    },
    forget(ids) {
      for (const id of ids) {
        if (id === undefined) continue;
        cache.delete(cacheKey('passport', id));
        cache.delete(cacheKey('principal', id));
        cache.delete(cacheKey('rpr', id));
      }
    },
  };
}
