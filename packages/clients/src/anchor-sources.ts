// What an anchor receipt's verifier may ask (chains and logs, anchor-client.ts) and how it asks: one HTTP request
// with a timeout, a source that does not answer usefully being SourceUnavailable (the check is then skipped).

import { DEFAULT_MAX_ANSWER_BYTES, isRedirect, readBoundedText } from './bounded-body.ts';

/** Where the verifier may read chains and logs. Receipts never choose a chain source; only `logs` may allow theirs. */
export interface AnchorVerificationSources {
  /**
   * The bundle's SHA3-256 hash (`sha3-256:<hex>`) when the caller knows it: a receipt anchoring a secondary hash
   * must name this one. Either way, a receipt's own secondary hash must lead to its batch root (P51).
   */
  readonly secondaryHash?: string;
  /**
   * False when `secondaryHash` was computed for every bundle rather than asked for (the /verify service,
   * `proto verify --receipt`): a receipt anchoring only bundle_hash then passes without a warning. Default true.
   */
  readonly warnWithoutSecondary?: boolean;
  /** EVM JSON-RPC URL for every EVM chain, or one per chain name (`ethereum`, `base`, …). */
  readonly evmRpc?: string | Readonly<Record<string, string>>;
  /** Esplora base URL for every network, or one per network (`mainnet`, `testnet`, `regtest`). */
  readonly esplora?: string | Readonly<Record<string, string>>;
  /**
   * Logs the verifier may call: a receipt's `log_url` must start with one of these URLs. `true` follows any
   * receipt's `log_url` (a person's own CLI; never a service, which would fetch URLs its callers choose).
   */
  readonly logs?: readonly (string | LogSource)[] | true;
  /** Confirmations needed for `pass` (default 1: in a block). */
  readonly minConfirmations?: number | { readonly evm?: number; readonly bitcoin?: number };
  /** Per request, the whole answer included (default 10 s). */
  readonly timeoutMs?: number;
  /** Largest answer read from a source (default 16 MiB); a longer one makes the source unavailable (P154). */
  readonly maxResponseBytes?: number;
  readonly fetch?: typeof fetch;
}

/** A log the verifier may call, with the keys that sign its checkpoints (C2SP verifier keys). */
export interface LogSource {
  readonly url: string;
  /** Verifier keys `<origin>+<key id>+<base64>`; with them the receipt is checked against a signed checkpoint. */
  readonly keys?: readonly string[];
  /** A signed checkpoint already held (no live call when its size is the receipt's). */
  readonly checkpoint?: string;
  /**
   * Witness vkeys (cosignature/v1 Ed25519): with them the checkpoint must also carry `quorum` (default: all)
   * valid cosignatures from distinct ones of these witnesses (P59, P60). Needs `keys`.
   */
  readonly witnesses?: readonly string[];
  readonly quorum?: number;
}

/** A source that did not answer usefully: the check is `skipped`, retryable. */
export class SourceUnavailable extends Error {}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * One request to a configured source. The timeout covers the whole exchange, body included; the body is read
 * up to `maxResponseBytes`; a redirect is not followed, as it could lead to a host the operator never named
 * (a metadata address, a local Redis) or to plain http: (P154). Each of these is SourceUnavailable.
 */
export async function request(
  sources: AnchorVerificationSources,
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; text: string }> {
  const doFetch = sources.fetch ?? fetch;
  const origin = new URL(url).origin;
  let res: Response;
  let text: string;
  const timeoutMs = sources.timeoutMs ?? 10_000;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    res = await doFetch(url, { ...init, redirect: 'manual', signal });
    if (isRedirect(res)) {
      await res.body?.cancel().catch(() => undefined);
      throw new SourceUnavailable(
        `${origin} answered HTTP ${res.status} (redirects are not followed: configure the final URL)`,
      );
    }
    text = await readBoundedText(res, sources.maxResponseBytes ?? DEFAULT_MAX_ANSWER_BYTES);
  } catch (error) {
    if (error instanceof SourceUnavailable) throw error;
    // "The operation was aborted" says nothing of why: a source that drips its answer must read as slow (P162).
    if (signal.aborted)
      throw new SourceUnavailable(
        `${origin} unreachable: did not answer within ${timeoutMs} ms (timeout, body included)`,
      );
    throw new SourceUnavailable(`${origin} unreachable: ${(error as Error).message}`);
  }
  if (res.status >= 500 || res.status === 429) {
    throw new SourceUnavailable(`${origin} answered HTTP ${res.status}`);
  }
  return { status: res.status, text };
}
