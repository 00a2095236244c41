// The revocation checker's cache of each source's signed list (revocation-client.ts decides from it): fetched
// over HTTP, verified, kept by Cache-Control/ETag and revalidated with If-None-Match, refused on a rollback
// (also across restarts, through the stored watermarks), the newest authentic list kept as evidence even
// when it is stale. D20, D21; issue 12.

import { fetchBounded, redactUrl } from '@proto/clients';
import {
  type ProtocolProfile,
  type RevocationStatusProblem,
  type VerifiedRevocationList,
  verifyRevocationList,
} from '@proto/core';
import { freshnessLifetimeMs, listFetchProblem } from './revocation-list-fetch.ts';
import { type RevocationSource, watermarkKey } from './revocation-sources.ts';

/** Where the highest accepted list_number of each source is kept (the store's revocationWatermarks). */
export interface RevocationWatermarks {
  highest(source: string): Promise<number | undefined>;
  raise(source: string, jurisdiction: string, listNumber: number): Promise<number>;
}

export interface ListCacheSettings {
  readonly fetch: typeof fetch;
  readonly clock: () => Date;
  readonly profile: ProtocolProfile;
  /** One fetch, body included. */
  readonly timeoutMs: number;
  /** Freshness when the response has no Cache-Control max-age. */
  readonly defaultTtlMs: number;
  /** Upper bound of any freshness lifetime. */
  readonly maxTtlMs: number;
  /** After a failed or refused fetch, wait this long before asking the source again. */
  readonly failureBackoffMs: number;
  readonly maxListBytes: number;
  readonly watermarks: RevocationWatermarks | undefined;
  readonly onNewRevocation: ((agentId: string, jurisdiction: string) => void) | undefined;
  readonly log: { warn(obj: object, msg: string): void } | undefined;
  readonly onFetched: ((jurisdiction: string) => void) | undefined;
}

export interface SourceState {
  /** Newest list accepted (not a rollback, signature valid, fresh when accepted). */
  accepted: VerifiedRevocationList | undefined;
  /** Newest authentic list seen, possibly stale: its entries still prove revocations (they are permanent). */
  evidence: VerifiedRevocationList | undefined;
  highest: number;
  etag: string | undefined;
  freshUntil: number;
  problem: { reason: RevocationStatusProblem; message: string } | undefined;
  /** Entries already reported through onNewRevocation. */
  seen: Set<string>;
  inflight: Promise<void> | undefined;
}

export type Problem = { readonly reason: RevocationStatusProblem; readonly message: string };

export interface ListCache {
  /** Every source's state so far, by normalised jurisdiction. */
  readonly states: ReadonlyMap<string, SourceState>;
  stateOf(jurisdiction: string): SourceState;
  /** Fetches the source's list unless the cached one is still fresh (one fetch at a time per source). */
  ensure(jurisdiction: string, source: RevocationSource, state: SourceState): Promise<void>;
  /** Why the source's current status is unknown, if it is. */
  problemOf(jurisdiction: string, state: SourceState): Problem | undefined;
}

export function createListCache(settings: ListCacheSettings): ListCache {
  const { clock, profile, timeoutMs, defaultTtlMs, maxTtlMs, failureBackoffMs, maxListBytes, watermarks } =
    settings;
  const fetchImpl = settings.fetch;
  const states = new Map<string, SourceState>();

  function stateOf(jurisdiction: string): SourceState {
    let state = states.get(jurisdiction);
    if (state === undefined) {
      state = {
        accepted: undefined,
        evidence: undefined,
        highest: -1,
        etag: undefined,
        freshUntil: 0,
        problem: undefined,
        seen: new Set(),
        inflight: undefined,
      };
      states.set(jurisdiction, state);
    }
    return state;
  }

  function announce(jurisdiction: string, state: SourceState, list: VerifiedRevocationList): void {
    for (const entry of list.list.entries) {
      if (state.seen.has(entry.agent_id)) continue;
      state.seen.add(entry.agent_id);
      try {
        settings.onNewRevocation?.(entry.agent_id, jurisdiction);
      } catch (error) {
        settings.log?.warn({ err: error, agent_id: entry.agent_id }, 'onNewRevocation failed');
      }
    }
  }

  function refuse(
    jurisdiction: string,
    state: SourceState,
    reason: RevocationStatusProblem,
    message: string,
  ): void {
    state.problem = { reason, message: `${jurisdiction}: ${message}` };
    state.freshUntil = clock().getTime() + failureBackoffMs;
    settings.log?.warn({ jurisdiction, reason }, `revocation list refused: ${message}`);
  }

  /** Raises the in-memory floor to the stored one; false (source refused) when the store cannot answer. */
  async function loadWatermark(jurisdiction: string, source: RevocationSource, state: SourceState) {
    if (watermarks === undefined) return true;
    try {
      const stored = await watermarks.highest(watermarkKey(jurisdiction, source));
      if (stored !== undefined && stored > state.highest) state.highest = stored;
      return true;
    } catch (error) {
      settings.log?.warn({ err: error, jurisdiction }, 'revocation watermark store unavailable');
      refuse(
        jurisdiction,
        state,
        'unavailable',
        'the highest list number seen cannot be read from the store',
      );
      return false;
    }
  }

  async function refresh(jurisdiction: string, source: RevocationSource, state: SourceState): Promise<void> {
    const shown = redactUrl(source.url);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (source.authorization !== undefined) headers['authorization'] = source.authorization;
    if (state.accepted !== undefined && state.etag !== undefined) headers['if-none-match'] = state.etag;
    let status: number;
    let responseHeaders: Headers;
    let body: string;
    try {
      // Redirects are not followed: one could lead to plain http: or to a host the operator never chose.
      const answer = await fetchBounded(source.url, {
        headers,
        timeoutMs,
        maxBytes: maxListBytes,
        ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }),
        readBody: (answered) => answered === 200,
        failWith: (fault) => new Error(listFetchProblem(fault, shown, source.url)),
      });
      status = answer.status;
      responseHeaders = answer.headers;
      body = answer.text();
    } catch (error) {
      refuse(jurisdiction, state, 'unavailable', (error as Error).message);
      return;
    }
    const now = clock().getTime();
    const lifetime = Math.min(freshnessLifetimeMs(responseHeaders, defaultTtlMs), maxTtlMs);
    if (status === 304 && state.accepted !== undefined) {
      // Revalidated: the cached list is still the current one (its next_update is checked at each use).
      state.freshUntil = Math.min(now + lifetime, state.accepted.nextUpdate.getTime());
      state.etag = responseHeaders.get('etag') ?? state.etag;
      state.problem = undefined;
      settings.onFetched?.(jurisdiction);
      return;
    }
    if (status !== 200) {
      const redirect =
        status >= 300 && status < 400 ? ' (redirects are not followed: configure the final URL)' : '';
      refuse(jurisdiction, state, 'unavailable', `${shown} answered HTTP ${status}${redirect}`);
      return;
    }
    // Only a new list needs the stored floor (a 304 renews a list already accepted against it).
    if (!(await loadWatermark(jurisdiction, source, state))) return;
    let document: unknown;
    try {
      document = JSON.parse(body);
    } catch {
      refuse(jurisdiction, state, 'unavailable', `${shown} did not return JSON`);
      return;
    }
    const verified = verifyRevocationList(document, source.keys, {
      now: new Date(now),
      expectedJurisdiction: jurisdiction,
      profile,
      ...(state.highest >= 0 ? { minListNumber: state.highest } : {}),
    });
    if (!verified.ok) {
      const authentic = verified.error.authentic;
      // A stale (or early) but authentic list newer than what we hold still proves its revocations.
      if (
        authentic !== undefined &&
        verified.error.reason !== 'rollback' &&
        authentic.listNumber >= state.highest
      ) {
        if (state.evidence === undefined || authentic.listNumber >= state.evidence.listNumber)
          state.evidence = authentic;
        announce(jurisdiction, state, authentic);
      } else if (
        authentic !== undefined &&
        verified.error.reason === 'rollback' &&
        state.evidence === undefined
      ) {
        // Refused as current (a restart knows a newer number but not its list), yet still authentic:
        // the revocations it carries are proven and permanent.
        state.evidence = authentic;
        announce(jurisdiction, state, authentic);
      }
      refuse(jurisdiction, state, verified.error.reason, verified.error.message);
      return;
    }
    const list = verified.value;
    state.accepted = list;
    state.evidence = list;
    state.highest = Math.max(state.highest, list.listNumber);
    state.etag = responseHeaders.get('etag') ?? undefined;
    state.freshUntil = Math.min(now + lifetime, list.nextUpdate.getTime());
    state.problem = undefined;
    settings.onFetched?.(jurisdiction);
    announce(jurisdiction, state, list);
    if (watermarks !== undefined) {
      // Kept in memory regardless; a failed write only weakens the guarantee across restarts.
      await watermarks
        .raise(watermarkKey(jurisdiction, source), jurisdiction, list.listNumber)
        .catch((error: unknown) =>
          settings.log?.warn({ err: error, jurisdiction }, 'revocation watermark not stored'),
        );
    }
  }

  async function ensure(jurisdiction: string, source: RevocationSource, state: SourceState): Promise<void> {
    if (clock().getTime() < state.freshUntil) return;
    state.inflight ??= refresh(jurisdiction, source, state).finally(() => {
      state.inflight = undefined;
    });
    await state.inflight;
  }

  function problemOf(jurisdiction: string, state: SourceState): Problem | undefined {
    if (state.problem !== undefined) return state.problem;
    if (state.accepted === undefined) {
      return { reason: 'unavailable', message: `${jurisdiction}: no revocation list yet` };
    }
    if (clock().getTime() > state.accepted.nextUpdate.getTime()) {
      return {
        reason: 'stale',
        message: `${jurisdiction}: revocation list ${state.accepted.listNumber} is stale since ${state.accepted.list.next_update}`,
      };
    }
    return undefined;
  }

  return { states, stateOf, ensure, problemOf };
}
