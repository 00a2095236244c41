// A verifier's revocation checker: consults every jurisdiction's signed list (revocation-list-cache.ts
// fetches, verifies and caches the LIST, never verdicts, and refuses rollbacks) and decides: revoked in any
// list fails, an unknown status fails closed at elevated+. D20, D21. Issue 12: every source is consulted
// whatever the bundle declares; list numbers survive restarts.
import {
  bundleReadAlikeRevocationWarnings,
  DEFAULT_PROFILE,
  decideRevocation,
  errorCode,
  failsClosed,
  type ProtocolProfile,
  type RevocationDecisionInput,
  type RevocationEntry,
  type RevocationStatusProblem,
} from '@proto/core';
import { normaliseJurisdiction, parentJurisdiction } from './jurisdiction.ts';
import { createListCache, type Problem, type RevocationWatermarks } from './revocation-list-cache.ts';
import type { RevocationSource, RevocationSources } from './revocation-sources.ts';

export type { RevocationWatermarks } from './revocation-list-cache.ts';
export { freshnessLifetimeMs } from './revocation-list-fetch.ts';
export * from './revocation-sources.ts';

export type RevocationTier = RevocationDecisionInput['tier'];

export interface RevocationCheckRequest {
  /**
   * `responsible_principal_record.jurisdiction` of the bundle (SPEC.md Revocation service), as written:
   * normalised here. It only decides whose list must be fresh: every source is searched for the ids.
   */
  readonly jurisdiction: string | undefined;
  /** Undefined for a bundle that names none (P517): its signers are still looked up (SPEC.md: "agent_id or signer"). */
  readonly agentId: string | undefined;
  /** Further ids a list entry may name (the bundle's signers). */
  readonly signerIds?: readonly string[];
  readonly tier: RevocationTier;
}

interface RevocationCheckFields {
  /** All warnings joined with "; " (see `warnings`). */
  readonly warning?: string;
  /** One per source whose status could not be established (below elevated), or the unlisted jurisdiction. */
  readonly warnings?: readonly string[];
  /** Why the status could not be established (unavailable, stale, rollback, bad_signature, …). */
  readonly reason?: RevocationStatusProblem;
  readonly list_number?: number;
  readonly entry?: RevocationEntry;
}

/** A failing check carries its code, message and retryability by type (P209): no reader supplies its own. */
export type RevocationCheckResult =
  | (RevocationCheckFields & {
      readonly status: 'pass';
      readonly code?: undefined;
      readonly message?: undefined;
      readonly retryable?: boolean;
    })
  | (RevocationCheckFields & {
      readonly status: 'skipped';
      readonly code?: undefined;
      readonly message?: undefined;
      readonly retryable?: boolean;
      readonly warning: string;
    })
  | (RevocationCheckFields & {
      readonly status: 'fail';
      /**
       * Wire code under the profile: E300 when revoked; E002 for a malformed jurisdiction; E401 for a
       * jurisdiction without a source at elevated+; E701 (retryable) when a list is unknown at elevated+.
       */
      readonly code: string;
      readonly message: string;
      readonly retryable: boolean;
    });

export interface RevocationCheckerOptions {
  readonly sources: RevocationSources;
  /** Persisted highest list_number per source, so a restart or a new replica refuses older lists. */
  readonly watermarks?: RevocationWatermarks;
  /** Jurisdictions a bundle may declare without a configured source at elevated+ (warning only). */
  readonly unlistedJurisdictions?: readonly string[];
  /** Default: the global fetch. */
  readonly fetch?: typeof fetch;
  /** One fetch, body included (default 3000 ms). */
  readonly timeoutMs?: number;
  readonly clock?: () => Date;
  /** Called once for every revocation seen for the first time (also for the entries of a first list). */
  readonly onNewRevocation?: (agentId: string, jurisdiction: string) => void;
  readonly profile?: ProtocolProfile;
  /** Freshness when the response has no Cache-Control max-age (default 60 s). */
  readonly defaultTtlMs?: number;
  /** Upper bound of any freshness lifetime (default 1 h). */
  readonly maxTtlMs?: number;
  /** After a failed or refused fetch, wait this long before asking the source again (default 5 s). */
  readonly failureBackoffMs?: number;
  /** Largest list body accepted (default 16 MiB). */
  readonly maxListBytes?: number;
  readonly log?: { warn(obj: object, msg: string): void };
  /** A source answered with a list accepted as current (200 verified, or 304): metrics (issue 16). */
  readonly onFetched?: (jurisdiction: string) => void;
}

export interface RevocationSourceState {
  /** The list currently trusted as fresh (signature, key, order and freshness checked). */
  readonly listNumber: number | undefined;
  /** Highest list_number accepted so far: anything lower is a rollback. */
  readonly highestListNumber: number;
  readonly etag: string | undefined;
  /** Until when the cached list is used without asking the source (HTTP freshness), ms since epoch. */
  readonly freshUntil: number;
  readonly problem: { readonly reason: RevocationStatusProblem; readonly message: string } | undefined;
}

export interface RevocationChecker {
  /** Never throws. */
  check(request: RevocationCheckRequest): Promise<RevocationCheckResult>;
  /** Cache state of a jurisdiction (diagnostics, /health). */
  state(jurisdiction: string): RevocationSourceState | undefined;
  /** Ends the HTTP freshness of cached lists so the next check revalidates (conditional GET). */
  expire(jurisdiction?: string): void;
}

const MAX_SHOWN_JURISDICTION = 40;

/**
 * The checker a verifier uses for the `revocation` check (D20, issue 12). Per source it keeps the newest
 * verified list and answers from it while its HTTP freshness lasts; then it revalidates with
 * If-None-Match (304 renews it). A list with a bad signature, an untrusted key, a lower list_number
 * than already accepted (also across restarts, through `watermarks`), or past its next_update is refused.
 * Every check consults EVERY source: an agent or signer named by any authentic list fails with E300 at
 * every tier. The declared jurisdiction (normalised; malformed: E002) only decides whose list must exist:
 * at elevated/maximum a jurisdiction without a source fails with E401 unless allow-listed. While any
 * source has no fresh trusted list the status is unknown: `fail` with E701 (CIRCUIT_OPEN, retryable) at
 * elevated/maximum, `skipped` with a warning below.
 */
export function createRevocationChecker(options: RevocationCheckerOptions): RevocationChecker {
  const clock = options.clock ?? (() => new Date());
  const profile = options.profile ?? DEFAULT_PROFILE;
  const { states, stateOf, ensure, problemOf } = createListCache({
    fetch: options.fetch ?? globalThis.fetch,
    clock,
    profile,
    timeoutMs: options.timeoutMs ?? 3000,
    defaultTtlMs: options.defaultTtlMs ?? 60_000,
    maxTtlMs: options.maxTtlMs ?? 3_600_000,
    failureBackoffMs: options.failureBackoffMs ?? 5000,
    maxListBytes: options.maxListBytes ?? 16 * 1024 * 1024,
    watermarks: options.watermarks,
    onNewRevocation: options.onNewRevocation,
    log: options.log,
    onFetched: options.onFetched,
  });
  // Keys normalised as the bundle's jurisdiction will be (parseRevocationSources already does this).
  const sources = new Map<string, RevocationSource>();
  for (const [code, source] of Object.entries(options.sources)) {
    sources.set(normaliseJurisdiction(code) ?? code, source);
  }
  const unlisted = new Set(
    (options.unlistedJurisdictions ?? []).map((code) => normaliseJurisdiction(code) ?? code),
  );
  function failure(name: Parameters<typeof errorCode>[0], message: string, retryable: boolean) {
    return { status: 'fail' as const, code: errorCode(name, profile), message, retryable };
  }

  /** A failing decision as the check's answer: its code under the profile, by type (P209). */
  function render(
    decision: Extract<ReturnType<typeof decideRevocation>, { status: 'fail' }>,
    prefix = '',
  ): RevocationCheckResult {
    return {
      status: 'fail',
      code: errorCode(decision.error.code, profile),
      message: `${prefix}${decision.error.message}`,
      retryable: decision.retryable,
      ...(decision.warning === undefined ? {} : { warning: decision.warning, warnings: [decision.warning] }),
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
      ...(decision.listNumber === undefined ? {} : { list_number: decision.listNumber }),
      ...(decision.entry === undefined ? {} : { entry: decision.entry }),
    };
  }

  /** The source whose list the declared jurisdiction needs: its own, else its country's ("US" for "US-CA"). */
  function ownSourceOf(declared: string | undefined): string | undefined {
    if (declared === undefined) return undefined;
    if (sources.has(declared)) return declared;
    const parent = parentJurisdiction(declared);
    return parent !== undefined && sources.has(parent) ? parent : undefined;
  }

  async function check(request: RevocationCheckRequest): Promise<RevocationCheckResult> {
    const ids = [...(request.agentId === undefined ? [] : [request.agentId]), ...(request.signerIds ?? [])];
    const raw = request.jurisdiction;
    const declared = raw === undefined ? undefined : normaliseJurisdiction(raw);
    if (raw !== undefined && declared === undefined) {
      const shownCode = JSON.stringify(raw.slice(0, MAX_SHOWN_JURISDICTION));
      return failure(
        'ARTIFACT_SCHEMA_INVALID',
        `responsible_principal_record.jurisdiction ${shownCode} is not an ISO 3166 code (two letters, optionally -subdivision, e.g. "US", "US-CA")`,
        false,
      );
    }
    const names = [...sources.keys()];
    await Promise.all(names.map((name) => ensure(name, sources.get(name)!, stateOf(name))));

    // 1. Revoked in any list, whatever the bundle declares (revocations are permanent: stale lists count).
    // P516: a list that does not revoke the agent but names an id that reads the same is said, not failed (D20).
    const lookAlikes: string[] = [];
    for (const name of names) {
      const list = stateOf(name).evidence?.list;
      if (list === undefined) continue;
      const decision = decideRevocation({ tier: request.tier, ids, list });
      if (decision.status === 'fail') return render(decision, `${name}: `);
      // P572: and one that reads as a signer's kid.
      const subject = { agentId: request.agentId, signerKids: request.signerIds };
      for (const w of bundleReadAlikeRevocationWarnings(list, subject)) lookAlikes.push(`${name}: ${w}`);
    }

    // 2. The declared jurisdiction's own list must be configured (or allow-listed by the operator).
    const own = ownSourceOf(declared);
    const warnings: string[] = [];
    if (own === undefined) {
      const message =
        declared === undefined
          ? 'the bundle names no jurisdiction'
          : `no revocation source is configured for jurisdiction ${declared}`;
      const allowed = declared !== undefined && unlisted.has(declared);
      if (failsClosed(request.tier) && !allowed) {
        return {
          ...failure(
            'POLICY_VIOLATION',
            `revocation status unknown at tier ${request.tier}: ${message} (REVOCATION_UNLISTED_JURISDICTIONS does not list it)`,
            false,
          ),
          reason: 'no_source',
        };
      }
      warnings.push(`revocation status not established: ${message}`);
    }

    // 3. Every source must hold a fresh, trusted list: otherwise unknown (E701 at elevated+, else warnings).
    const problems = names
      .map((name) => problemOf(name, stateOf(name)))
      .filter((problem): problem is Problem => problem !== undefined);
    const ownList = own === undefined ? undefined : stateOf(own).evidence;
    const listNumber = ownList === undefined ? {} : { list_number: ownList.listNumber };
    if (problems.length > 0) {
      const decision = decideRevocation({
        tier: request.tier,
        ids,
        problem: { reason: problems[0]!.reason, message: problems.map((p) => p.message).join('; ') },
      });
      if (decision.status === 'fail') return { ...render(decision), ...listNumber };
      warnings.push(...problems.map((p) => `revocation status not established: ${p.message}`));
    }
    if (warnings.length === 0) {
      if (lookAlikes.length === 0) return { status: 'pass', ...listNumber };
      return { status: 'pass', warning: lookAlikes.join('; '), warnings: lookAlikes, ...listNumber };
    }
    warnings.push(...lookAlikes);
    return {
      status: 'skipped',
      warning: warnings.join('; '),
      warnings,
      reason: own === undefined ? 'no_source' : problems[0]!.reason,
      ...listNumber,
    };
  }

  return {
    async check(request) {
      try {
        return await check(request);
      } catch (error) {
        // Not expected; should it happen the status is unknown and D20's fail-closed rule applies.
        const message = `revocation status unknown: ${(error as Error).message}`;
        return failsClosed(request.tier)
          ? { ...failure('CIRCUIT_OPEN', message, true), reason: 'unavailable' }
          : { status: 'skipped', warning: message, warnings: [message], reason: 'unavailable' };
      }
    },

    state(jurisdiction) {
      const state = states.get(normaliseJurisdiction(jurisdiction) ?? jurisdiction);
      if (state === undefined) return undefined;
      return {
        listNumber: state.accepted?.listNumber,
        highestListNumber: state.highest,
        etag: state.etag,
        freshUntil: state.freshUntil,
        problem: state.problem,
      };
    },

    expire(jurisdiction) {
      const wanted =
        jurisdiction === undefined ? undefined : (normaliseJurisdiction(jurisdiction) ?? jurisdiction);
      for (const [name, state] of states) if (wanted === undefined || name === wanted) state.freshUntil = 0;
    },
  };
}
