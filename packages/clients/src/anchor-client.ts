// Verifies an anchor receipt against public data: the bundle's path to the batch root (offline), then the chain through
// the operator's EVM JSON-RPC or Esplora explorer, or the log (anchor-log-receipt.ts). DECISIONS D19, D12; SPEC.md "Anchor receipt".
import {
  ANCHOR_CHECK_CODES,
  type AnchorCheck,
  anchorSkipped,
  type BitcoinAnchorReceipt,
  checkBitcoinChainData,
  checkEvmChainData,
  type EvmAnchorReceipt,
  type PreparedReceipt,
  prepareReceiptCheck,
} from '@proto/core';
import { verifyLog } from './anchor-log-receipt.ts';
import { type AnchorVerificationSources, request, SourceUnavailable, trimSlash } from './anchor-sources.ts';

export type { AnchorCheck } from '@proto/core';
export type { AnchorVerificationSources, LogSource } from './anchor-sources.ts';

function pick(
  source: string | Readonly<Record<string, string>> | undefined,
  key: string,
): string | undefined {
  if (source === undefined) return undefined;
  if (typeof source === 'string') return source;
  return Object.hasOwn(source, key) ? source[key] : undefined;
}

function confirmationsFor(sources: AnchorVerificationSources, kind: 'evm' | 'bitcoin'): number {
  const m = sources.minConfirmations;
  if (m === undefined) return 1;
  if (typeof m === 'number') return m;
  return m[kind] ?? 1;
}

let nextRpcId = 1;

/**
 * One JSON-RPC 2.0 call; transport failures, error answers and anything that is not the answer to this very
 * request (not an object, another id: a confused proxy or cache) are SourceUnavailable (P154).
 */
export async function jsonRpc(
  url: string,
  method: string,
  params: readonly unknown[],
  sources: AnchorVerificationSources = {},
): Promise<unknown> {
  const id = nextRpcId;
  nextRpcId = nextRpcId >= Number.MAX_SAFE_INTEGER ? 1 : nextRpcId + 1;
  const { status, text } = await request(sources, url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new SourceUnavailable(`${method}: HTTP ${status}, not JSON`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new SourceUnavailable(`${method}: HTTP ${status}, not a JSON-RPC answer`);
  }
  const answer = body as { id?: unknown; result?: unknown; error?: unknown };
  if (answer.error !== undefined && answer.error !== null) {
    const message = (answer.error as { message?: unknown }).message;
    throw new SourceUnavailable(
      `${method}: ${typeof message === 'string' ? message.slice(0, 200) : 'RPC error'}`,
    );
  }
  if (answer.id !== id) {
    const shown = JSON.stringify(answer.id ?? null).slice(0, 40);
    throw new SourceUnavailable(`${method}: the answer has id ${shown}, not the request's ${id}`);
  }
  // Neither result nor error is no answer at all, not the node's `null` for an unknown transaction (P161).
  if (!Object.hasOwn(answer, 'result')) {
    throw new SourceUnavailable(`${method}: HTTP ${status}, a JSON-RPC answer without result`);
  }
  return answer.result ?? null;
}

async function verifyEvm(
  prepared: PreparedReceipt,
  sources: AnchorVerificationSources,
): Promise<AnchorCheck> {
  const r = prepared.parsed.receipt as EvmAnchorReceipt;
  const url = pick(sources.evmRpc, r.chain);
  if (url === undefined) {
    return anchorSkipped(`no EVM RPC configured for chain ${r.chain}`, ANCHOR_CHECK_CODES.noSource, false, {
      kind: 'evm',
    });
  }
  if (r.tx_id === undefined) return checkEvmChainData(prepared, { txReceipt: null, tipBlock: 0 });
  const [chainId, txReceipt, tipBlock] = await Promise.all([
    r.chain_id === undefined ? Promise.resolve(undefined) : jsonRpc(url, 'eth_chainId', [], sources),
    jsonRpc(url, 'eth_getTransactionReceipt', [r.tx_id], sources),
    jsonRpc(url, 'eth_blockNumber', [], sources),
  ]);
  return checkEvmChainData(
    prepared,
    // The answers as given: core judges their shape, a malformed one being the source unavailable (P161).
    { ...(r.chain_id === undefined ? {} : { chainId }), txReceipt, tipBlock },
    confirmationsFor(sources, 'evm'),
  );
}

async function verifyBitcoin(
  prepared: PreparedReceipt,
  sources: AnchorVerificationSources,
): Promise<AnchorCheck> {
  const r = prepared.parsed.receipt as BitcoinAnchorReceipt;
  const network = r.network ?? 'mainnet';
  const base = pick(sources.esplora, network);
  if (base === undefined) {
    return anchorSkipped(
      `no Esplora explorer configured for ${r.chain} ${network}`,
      ANCHOR_CHECK_CODES.noSource,
      false,
      {
        kind: 'bitcoin',
      },
    );
  }
  if (r.tx_id === undefined)
    return checkBitcoinChainData(prepared, { rawTx: '', status: null, tipHeight: 0 });
  const root = trimSlash(base);
  const [hex, status, tip] = await Promise.all([
    request(sources, `${root}/tx/${r.tx_id}/hex`),
    request(sources, `${root}/tx/${r.tx_id}/status`),
    request(sources, `${root}/blocks/tip/height`),
  ]);
  if (hex.status === 404) {
    if (r.status === 'confirmed' || r.block_height !== undefined) {
      return {
        status: 'fail',
        message: `the explorer knows no transaction ${r.tx_id}`,
        code: ANCHOR_CHECK_CODES.contradiction,
        retryable: false,
        warnings: [],
        kind: 'bitcoin',
      };
    }
    return anchorSkipped(`transaction ${r.tx_id} is not known yet`, ANCHOR_CHECK_CODES.notYet, true, {
      kind: 'bitcoin',
    });
  }
  if (hex.status !== 200 || status.status !== 200 || tip.status !== 200) {
    throw new SourceUnavailable(`explorer answered HTTP ${hex.status}/${status.status}/${tip.status}`);
  }
  let parsedStatus: unknown;
  try {
    parsedStatus = JSON.parse(status.text);
  } catch {
    throw new SourceUnavailable('explorer status is not JSON');
  }
  const tipHeight = Number(tip.text.trim());
  if (!Number.isSafeInteger(tipHeight)) throw new SourceUnavailable('explorer tip height is not a number');
  return checkBitcoinChainData(
    prepared,
    { rawTx: hex.text, status: parsedStatus, tipHeight },
    confirmationsFor(sources, 'bitcoin'),
  );
}

/**
 * Verifies `receipt` for `bundleHash` (recomputed by the caller from the bundle): the Merkle path to the
 * batch root, then the chain or log. `fail` when anything contradicts the receipt; `skipped` (with a
 * warning, and `retryable` when asking later may help) when a source cannot be reached or has nothing yet.
 * Never throws.
 */
export async function verifyAnchorReceipt(
  receipt: unknown,
  bundleHash: string,
  sources: AnchorVerificationSources,
): Promise<AnchorCheck> {
  const prepared = prepareReceiptCheck(
    receipt,
    bundleHash,
    sources.secondaryHash,
    sources.warnWithoutSecondary ?? true,
  );
  if (!prepared.ok) return prepared.error;
  const kind = prepared.value.parsed.kind;
  try {
    if (kind === 'evm') return await verifyEvm(prepared.value, sources);
    if (kind === 'bitcoin') return await verifyBitcoin(prepared.value, sources);
    return await verifyLog(prepared.value, bundleHash, sources);
  } catch (error) {
    if (error instanceof SourceUnavailable) {
      return anchorSkipped(error.message, ANCHOR_CHECK_CODES.unreachable, true, { kind });
    }
    return anchorSkipped(
      `verification stopped: ${(error as Error).message}`,
      ANCHOR_CHECK_CODES.unreachable,
      true,
      { kind },
    );
  }
}
