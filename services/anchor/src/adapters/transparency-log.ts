// Transparency-log adapter: appends each hash to the log service (POST /add) and keeps its index and inclusion proof.
// SPEC.md "Transparency log" receipt {log_url, log_index, merkle_proof, root_anchor?}; DECISIONS D18 (API, dedup), D19.
import { readFileSync } from 'node:fs';
import { dateTimeInstant, isRfc3339Instant } from '@proto/core';
import { fetchBounded } from '@proto/service-kit';
import type { AnchorBatch, AnchorItem, WriteIntent } from '@proto/store';
import { verifyAnchorInclusion } from '../core.ts';
import type { BroadcastResult, ChainAdapter, TrackResult } from './types.ts';
import { TransientError, transientFault } from './types.ts';

export const LOG_CHAIN_NAME = 'transparency-log';

export interface TransparencyLogAdapterOptions {
  readonly url: string;
  readonly token?: string | undefined;
  /** A file holding the log's token (its generated DATA_DIR/operator-token), read when `token` is unset. */
  readonly tokenFile?: string | undefined;
  readonly timeoutMs?: number;
  /**
   * Appends in flight at once (TL_CONCURRENCY, default 64). The log answers each POST /add once its batch is
   * durable, so eight at a time sent a 1,024-hash batch in ~15 s (issue 16); the log groups concurrent appends.
   */
  readonly concurrency?: number;
}

/** What the service keeps per request once the log holds it. */
export interface LogEntryDetail {
  readonly log_index: number;
  readonly tree_size: number;
  readonly root: string;
  readonly proof: readonly string[];
  readonly timestamp: string | null;
}

class DefinitiveError extends Error {}

/**
 * The time a log reports for an entry, as the receipt's `anchored_at`: null when the log says none. A string must
 * be a PROTOCOL date-time, by core's one check (the schemas' RFC 3339, P202; a leap second read on its earliest
 * side, as receipts' times are, P178); a number is seconds or milliseconds since the epoch. Either must name an instant RFC 3339 can write (years 0000–9999): Date took
 * `March 7`, `2026-02-30` and 8.64e15 (written `+275760-09-13T…`, no RFC 3339 time). Anything else is a malformed
 * answer, retried like a log answering HTML (P184; before, P155 dropped a time out of range and kept the entry).
 */
function isoTime(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  let ms = Number.NaN;
  // Seconds or milliseconds since the epoch.
  if (typeof value === 'number' && Number.isFinite(value)) ms = Math.abs(value) < 1e11 ? value * 1000 : value;
  else if (typeof value === 'string') ms = dateTimeInstant(value, 'earliest');
  if (!isRfc3339Instant(ms)) {
    const shown =
      typeof value === 'string'
        ? JSON.stringify(value.slice(0, 60))
        : typeof value === 'number'
          ? String(value)
          : typeof value;
    throw new TransientError(`log /add: malformed answer (timestamp ${shown} is no RFC 3339 time)`);
  }
  return new Date(Math.floor(ms)).toISOString();
}

export class TransparencyLogAdapter implements ChainAdapter {
  readonly name = LOG_CHAIN_NAME;
  readonly kind = 'log' as const;
  readonly confirmationsRequired = 1;
  readonly batches = false;
  readonly #base: string;
  #token: string | undefined;
  readonly #tokenFile: string | undefined;
  readonly #timeoutMs: number;
  readonly #concurrency: number;

  constructor(options: TransparencyLogAdapterOptions) {
    this.#base = options.url.replace(/\/+$/, '');
    this.#token = options.token;
    this.#tokenFile = options.tokenFile;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#concurrency = options.concurrency ?? 64;
  }

  get logUrl(): string {
    return this.#base;
  }

  describe(): Record<string, unknown> {
    return { kind: this.kind, log_url: this.#base };
  }

  /**
   * One call to the log. The timeout covers the whole answer, which is read up to 16 MiB (fetchBounded); a
   * redirect is not followed (it would carry the token's request to a host the operator never named): P155.
   */
  async #call(path: string, init: RequestInit = {}): Promise<unknown> {
    const res = await fetchBounded(`${this.#base}${path}`, {
      ...init,
      timeoutMs: this.#timeoutMs,
      failWith: transientFault(`log ${path}`),
    });
    const text = res.text();
    if (res.status >= 500 || res.status === 429 || res.status === 404) {
      // 404 on /proof: the entry is sequenced but not yet in the served tree.
      throw new TransientError(`log ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
    }
    if (!res.ok) throw new DefinitiveError(`log ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // A page from a proxy or portal in the log's place says nothing of the hash: the log may answer later (P168).
      throw new TransientError(
        `log ${path}: HTTP ${res.status} answer is not JSON (${(res.headers.get('content-type') ?? 'no content type').slice(0, 100)})`,
      );
    }
  }

  async ready(): Promise<void> {
    await this.#call('/root');
  }

  async prepare(): Promise<WriteIntent> {
    // Nothing to sign: the log deduplicates (D18), so appending again after a crash returns the same index.
    return {};
  }

  /**
   * The log's token. A token file is read on first use, not at boot: the log may create it after this
   * service starts (one stack started at once). Until it exists the append goes out without one (401).
   */
  #currentToken(): string | undefined {
    if (this.#token === undefined && this.#tokenFile !== undefined) {
      try {
        const text = readFileSync(this.#tokenFile, 'utf8').split(',')[0]?.trim();
        if (text) this.#token = text;
      } catch {
        // Not there yet: retried on the next append.
      }
    }
    return this.#token;
  }

  async #append(item: AnchorItem): Promise<LogEntryDetail> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const token = this.#currentToken();
    if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
    const added = (await this.#call('/add', {
      method: 'POST',
      headers,
      body: JSON.stringify({ bundle_hash: item.bundle_hash }),
    })) as Record<string, unknown>;
    const index = added['log_index'];
    if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0) {
      // Not an answer of a log (a misconfigured TL_URL, a proxy's JSON): retried, as an unreachable log is (P168).
      throw new TransientError('log /add answered without a log_index');
    }
    const timestamp = isoTime(added['timestamp']);
    const proof = (await this.#call(`/proof/${index}`)) as Record<string, unknown>;
    const size = proof['tree_size'];
    const root = proof['root'];
    const path = proof['proof'];
    if (
      typeof size !== 'number' ||
      typeof root !== 'string' ||
      !Array.isArray(path) ||
      !verifyAnchorInclusion(item.bundle_hash, index, size, path as string[], root)
    ) {
      // Never hand out a receipt the log's own proof does not support.
      throw new DefinitiveError(`log proof for index ${index} does not include ${item.bundle_hash}`);
    }
    return {
      log_index: index,
      tree_size: size,
      root,
      proof: path as string[],
      timestamp,
    };
  }

  async broadcast(_batch: AnchorBatch, items: readonly AnchorItem[]): Promise<BroadcastResult> {
    const details: { seq: number; detail: LogEntryDetail }[] = [];
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const item = items[next++] as AnchorItem;
        details.push({ seq: item.seq, detail: await this.#append(item) });
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(this.#concurrency, items.length) }, worker));
    } catch (error) {
      return { ok: false, definitive: error instanceof DefinitiveError, error: (error as Error).message };
    }
    return {
      ok: true,
      itemDetails: details,
      progress: { confirmations: 1, confirmed: true, anchoredAt: new Date().toISOString() },
    };
  }

  async track(): Promise<TrackResult> {
    // Appends are final when acknowledged (D18: durable before the answer); nothing to wait for.
    return { state: 'unknown' };
  }

  receipt(item: AnchorItem) {
    const detail = item.detail as LogEntryDetail | null;
    const fields: Record<string, unknown> = { log_url: this.#base };
    if (detail === null) return { fields, batchFields: false };
    Object.assign(fields, {
      log_index: detail.log_index,
      merkle_proof: detail.proof,
      batch_root: detail.root,
      batch_size: detail.tree_size,
      leaf_index: detail.log_index,
      merkle_path: detail.proof,
      ...(detail.timestamp === null ? {} : { anchored_at: detail.timestamp }),
    });
    return { fields, batchFields: false };
  }
}
