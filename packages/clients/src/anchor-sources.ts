// What an anchor receipt's verifier may ask (chains and logs, anchor-client.ts) and how it asks: one HTTP request
// with a timeout, a source that does not answer usefully being SourceUnavailable (the check is then skipped).

import { fetchBounded } from './fetch-bounded.ts';

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
  const origin = new URL(url).origin;
  const answer = await fetchBounded(url, {
    ...init,
    timeoutMs: sources.timeoutMs ?? 10_000,
    ...(sources.maxResponseBytes === undefined ? {} : { maxBytes: sources.maxResponseBytes }),
    ...(sources.fetch === undefined ? {} : { fetch: sources.fetch }),
    failWith: (fault) => {
      switch (fault.kind) {
        case 'redirect':
          return new SourceUnavailable(
            `${origin} answered HTTP ${fault.status} (redirects are not followed: configure the final URL)`,
          );
        // "The operation was aborted" says nothing of why: a source that drips its answer must read as slow (P162).
        case 'timeout':
          return new SourceUnavailable(
            `${origin} unreachable: did not answer within ${fault.timeoutMs} ms (timeout, body included)`,
          );
        default:
          return new SourceUnavailable(`${origin} unreachable: ${fault.error.message}`);
      }
    },
  });
  if (answer.status >= 500 || answer.status === 429) {
    throw new SourceUnavailable(`${origin} answered HTTP ${answer.status}`);
  }
  return { status: answer.status, text: answer.text() };
}
