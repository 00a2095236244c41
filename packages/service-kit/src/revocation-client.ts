// A verifier's revocation checker: fetches each jurisdiction's signed list over HTTP, verifies and caches
// the LIST (never verdicts) by Cache-Control/ETag, refuses rollbacks, fails closed at elevated+. D20, D21.
// Core's revocation module (not yet re-exported by @proto/core's index; switch to '@proto/core' when it is).
import {
  DEFAULT_PROFILE,
  decideRevocation,
  errorCode,
  type ProtocolProfile,
  parseTrustedKey,
  type RevocationDecisionInput,
  type RevocationEntry,
  type RevocationStatusProblem,
  type TrustedKey,
  type TrustedKeyInput,
  type VerifiedRevocationList,
  verifyRevocationList,
} from '@proto/core';
import { ConfigError } from './config.ts';

export type RevocationTier = RevocationDecisionInput['tier'];

/** Where a jurisdiction publishes its list and the Ed25519 keys trusted to sign it. */
export interface RevocationSource {
  readonly url: string;
  readonly keys: readonly TrustedKeyInput[];
}

export type RevocationSources = Readonly<Record<string, RevocationSource>>;

/** Environment variables a verifier reads to check revocations and attestations (spread into defineEnv). */
export const REVOCATION_CLIENT_ENV = {
  REVOCATION_SOURCES: {
    type: 'string',
    description: 'JSON {"<jurisdiction>": {"url": "<list url>", "keys": ["<base64 Ed25519 key>", …]}}',
  },
  ATTESTATION_TRUSTED_KEYS: {
    type: 'string',
    description:
      'JSON {"<jurisdiction>": ["<base64 key>" | {public_key_b64, key_id?, valid_from?, valid_until?}, …]}',
  },
  REVOCATION_FETCH_TIMEOUT_MS: {
    type: 'integer',
    minimum: 100,
    default: 3000,
    description: 'Timeout of one revocation list fetch',
  },
} as const;

const JURISDICTION_PATTERN = /^[\w:.-]{2,64}$/;

function parseJsonVariable(text: string, variable: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${variable} is not valid JSON: ${(error as Error).message}`, [variable]);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseKeyList(value: unknown, where: string, variable: string): TrustedKey[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new ConfigError(`${where} must be a non-empty array of keys`, [variable]);
  }
  return value.map((entry, i) => {
    const parsed = parseTrustedKey(entry);
    if (!parsed.ok) throw new ConfigError(`${where}[${i}]: ${parsed.error.message}`, [variable]);
    return parsed.value;
  });
}

/**
 * Parses REVOCATION_SOURCES: `{"<jurisdiction>": {"url": "https://…", "keys": ["<base64>", …]}}`. A key
 * may also be `{public_key_b64, key_id?, valid_from?, valid_until?}`. Unset or empty: no sources.
 * Throws ConfigError naming the variable.
 */
export function parseRevocationSources(
  text: string | undefined,
  variable = 'REVOCATION_SOURCES',
): Record<string, RevocationSource> {
  if (text === undefined || text.trim() === '') return {};
  const value = parseJsonVariable(text, variable);
  if (!isObject(value))
    throw new ConfigError(`${variable} must be a JSON object keyed by jurisdiction`, [variable]);
  const sources: Record<string, RevocationSource> = {};
  for (const [jurisdiction, source] of Object.entries(value)) {
    if (!JURISDICTION_PATTERN.test(jurisdiction)) {
      throw new ConfigError(`${variable}: jurisdiction ${JSON.stringify(jurisdiction)} is not a valid code`, [
        variable,
      ]);
    }
    if (!isObject(source))
      throw new ConfigError(`${variable}.${jurisdiction} must be {url, keys}`, [variable]);
    const url = source['url'];
    let parsedUrl: URL | undefined;
    try {
      parsedUrl = typeof url === 'string' ? new URL(url) : undefined;
    } catch {
      parsedUrl = undefined;
    }
    if (parsedUrl === undefined || (parsedUrl.protocol !== 'https:' && parsedUrl.protocol !== 'http:')) {
      throw new ConfigError(`${variable}.${jurisdiction}.url must be an http(s) URL`, [variable]);
    }
    sources[jurisdiction] = {
      url: parsedUrl.href,
      keys: parseKeyList(source['keys'], `${variable}.${jurisdiction}.keys`, variable),
    };
  }
  return sources;
}

/**
 * Parses ATTESTATION_TRUSTED_KEYS: `{"<jurisdiction>": [<key>, …]}` where a key is a base64 Ed25519
 * public key or an entry of a `…-attestation-keys.json` document (`{key_id, public_key_b64,
 * valid_from, valid_until}`). Unset or empty: no trusted keys. Throws ConfigError.
 */
export function parseAttestationTrustedKeys(
  text: string | undefined,
  variable = 'ATTESTATION_TRUSTED_KEYS',
): Record<string, TrustedKey[]> {
  if (text === undefined || text.trim() === '') return {};
  const value = parseJsonVariable(text, variable);
  if (!isObject(value))
    throw new ConfigError(`${variable} must be a JSON object keyed by jurisdiction`, [variable]);
  const keys: Record<string, TrustedKey[]> = {};
  for (const [jurisdiction, list] of Object.entries(value)) {
    if (!JURISDICTION_PATTERN.test(jurisdiction)) {
      throw new ConfigError(`${variable}: jurisdiction ${JSON.stringify(jurisdiction)} is not a valid code`, [
        variable,
      ]);
    }
    keys[jurisdiction] = parseKeyList(list, `${variable}.${jurisdiction}`, variable);
  }
  return keys;
}

export interface RevocationCheckRequest {
  /** `responsible_principal_record.jurisdiction` of the bundle (SPEC.md Revocation service). */
  readonly jurisdiction: string | undefined;
  readonly agentId: string;
  /** Further ids a list entry may name (the bundle's signers). */
  readonly signerIds?: readonly string[];
  readonly tier: RevocationTier;
}

export interface RevocationCheckResult {
  readonly status: 'pass' | 'fail' | 'skipped';
  /** Wire code under the profile: E300 when revoked; E701 (retryable) when failing closed. */
  readonly code?: string;
  readonly retryable?: boolean;
  readonly message?: string;
  readonly warning?: string;
  /** Why the status could not be established (unavailable, stale, rollback, bad_signature, …). */
  readonly reason?: RevocationStatusProblem;
  readonly list_number?: number;
  readonly entry?: RevocationEntry;
}

export interface RevocationCheckerOptions {
  readonly sources: RevocationSources;
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
  /** A jurisdiction without a configured source fails at elevated/maximum too (default false: skipped). */
  readonly failClosedWithoutSource?: boolean;
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
  check(request: RevocationCheckRequest): Promise<RevocationCheckResult>;
  /** Cache state of a jurisdiction (diagnostics, /health). */
  state(jurisdiction: string): RevocationSourceState | undefined;
  /** Ends the HTTP freshness of cached lists so the next check revalidates (conditional GET). */
  expire(jurisdiction?: string): void;
}

interface SourceState {
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

class ListTooLarge extends Error {}

async function readCapped(response: Response, max: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max)
    throw new ListTooLarge(`list of ${declared} bytes exceeds ${max}`);
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => undefined);
      throw new ListTooLarge(`list exceeds ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Freshness lifetime from Cache-Control (max-age, minus Age); no-store/no-cache revalidate every time. */
export function freshnessLifetimeMs(headers: Headers, defaultMs: number): number {
  const cacheControl = headers.get('cache-control');
  let lifetime = defaultMs;
  if (cacheControl !== null) {
    const directives = cacheControl.split(',').map((d) => d.trim().toLowerCase());
    if (directives.some((d) => d === 'no-store' || d === 'no-cache')) return 0;
    const maxAge = directives.map((d) => /^max-age\s*=\s*"?(\d+)"?$/.exec(d)).find((m) => m !== null);
    if (maxAge) lifetime = Number(maxAge[1]) * 1000;
  }
  const age = Number(headers.get('age'));
  if (Number.isFinite(age) && age > 0) lifetime -= age * 1000;
  return Math.max(0, lifetime);
}

/**
 * The checker a verifier uses for the `revocation` check (D20). Per jurisdiction it keeps the newest
 * verified list and answers from it while its HTTP freshness lasts; then it revalidates with
 * If-None-Match (304 renews it). A list with a bad signature, an untrusted key, a lower list_number
 * than already accepted, or past its next_update is refused; while no fresh trusted list is held the
 * status is unknown: `fail` with E701 (CIRCUIT_OPEN, retryable) at elevated/maximum, `skipped` with a
 * warning below. An agent or signer named by any authentic list fails with E300 at every tier.
 */
export function createRevocationChecker(options: RevocationCheckerOptions): RevocationChecker {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? (() => new Date());
  const profile = options.profile ?? DEFAULT_PROFILE;
  const timeoutMs = options.timeoutMs ?? 3000;
  const defaultTtlMs = options.defaultTtlMs ?? 60_000;
  const maxTtlMs = options.maxTtlMs ?? 3_600_000;
  const failureBackoffMs = options.failureBackoffMs ?? 5000;
  const maxListBytes = options.maxListBytes ?? 16 * 1024 * 1024;
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
        options.onNewRevocation?.(entry.agent_id, jurisdiction);
      } catch (error) {
        options.log?.warn({ err: error, agent_id: entry.agent_id }, 'onNewRevocation failed');
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
    options.log?.warn({ jurisdiction, reason }, `revocation list refused: ${message}`);
  }

  async function refresh(jurisdiction: string, source: RevocationSource, state: SourceState): Promise<void> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (state.accepted !== undefined && state.etag !== undefined) headers['if-none-match'] = state.etag;
    let status: number;
    let responseHeaders: Headers;
    let body = '';
    try {
      const response = await fetchImpl(source.url, { headers, signal: AbortSignal.timeout(timeoutMs) });
      status = response.status;
      responseHeaders = response.headers;
      if (status === 200) body = await readCapped(response, maxListBytes);
      else await response.body?.cancel().catch(() => undefined);
    } catch (error) {
      const why =
        error instanceof Error
          ? error.name === 'TimeoutError'
            ? `timed out after ${timeoutMs} ms`
            : error.message
          : String(error);
      refuse(jurisdiction, state, 'unavailable', `${source.url}: ${why}`);
      return;
    }
    const now = clock().getTime();
    const lifetime = Math.min(freshnessLifetimeMs(responseHeaders, defaultTtlMs), maxTtlMs);
    if (status === 304 && state.accepted !== undefined) {
      // Revalidated: the cached list is still the current one (its next_update is checked at each use).
      state.freshUntil = Math.min(now + lifetime, state.accepted.nextUpdate.getTime());
      state.etag = responseHeaders.get('etag') ?? state.etag;
      state.problem = undefined;
      options.onFetched?.(jurisdiction);
      return;
    }
    if (status !== 200) {
      refuse(jurisdiction, state, 'unavailable', `${source.url} answered HTTP ${status}`);
      return;
    }
    let document: unknown;
    try {
      document = JSON.parse(body);
    } catch {
      refuse(jurisdiction, state, 'unavailable', `${source.url} did not return JSON`);
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
    options.onFetched?.(jurisdiction);
    announce(jurisdiction, state, list);
  }

  async function ensure(jurisdiction: string, source: RevocationSource, state: SourceState): Promise<void> {
    if (clock().getTime() < state.freshUntil) return;
    state.inflight ??= refresh(jurisdiction, source, state).finally(() => {
      state.inflight = undefined;
    });
    await state.inflight;
  }

  function render(decision: ReturnType<typeof decideRevocation>): RevocationCheckResult {
    return {
      status: decision.status,
      ...(decision.error
        ? {
            code: errorCode(decision.error.code, profile),
            message: decision.error.message,
            retryable: decision.retryable,
          }
        : {}),
      ...(decision.warning === undefined ? {} : { warning: decision.warning }),
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
      ...(decision.listNumber === undefined ? {} : { list_number: decision.listNumber }),
      ...(decision.entry === undefined ? {} : { entry: decision.entry }),
    };
  }

  return {
    async check(request) {
      const ids = [request.agentId, ...(request.signerIds ?? [])];
      const jurisdiction = request.jurisdiction;
      const source =
        jurisdiction !== undefined && Object.hasOwn(options.sources, jurisdiction)
          ? options.sources[jurisdiction]
          : undefined;
      if (jurisdiction === undefined || source === undefined) {
        const message =
          jurisdiction === undefined
            ? 'the bundle names no jurisdiction'
            : `no revocation source is configured for jurisdiction ${jurisdiction}`;
        return render(
          decideRevocation({
            tier: request.tier,
            ids,
            problem: { reason: 'no_source', message },
            failClosedWithoutSource: options.failClosedWithoutSource === true,
          }),
        );
      }
      const state = stateOf(jurisdiction);
      await ensure(jurisdiction, source, state);
      const now = clock().getTime();
      let problem = state.problem;
      if (
        problem === undefined &&
        state.accepted !== undefined &&
        now > state.accepted.nextUpdate.getTime()
      ) {
        problem = {
          reason: 'stale',
          message: `${jurisdiction}: revocation list ${state.accepted.listNumber} is stale since ${state.accepted.list.next_update}`,
        };
      }
      if (problem === undefined && state.accepted === undefined) {
        problem = { reason: 'unavailable', message: `${jurisdiction}: no revocation list yet` };
      }
      return render(
        decideRevocation({
          tier: request.tier,
          ids,
          list: state.evidence?.list,
          ...(problem === undefined ? {} : { problem }),
        }),
      );
    },

    state(jurisdiction) {
      const state = states.get(jurisdiction);
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
      for (const [name, state] of states)
        if (jurisdiction === undefined || name === jurisdiction) state.freshUntil = 0;
    },
  };
}
