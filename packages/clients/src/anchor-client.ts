// Verifies an anchor receipt against public data: the bundle's path to the batch root (offline), then the chain through
// the operator's EVM JSON-RPC or Esplora explorer, or the log's proof endpoint. DECISIONS D19, D12; SPEC.md "Anchor receipt".
import {
  ANCHOR_CHECK_CODES,
  type AnchorCheck,
  anchorSkipped,
  type BitcoinAnchorReceipt,
  checkBitcoinChainData,
  checkEvmChainData,
  checkLogProofData,
  type EvmAnchorReceipt,
  fromHex,
  type LogAnchorReceipt,
  type NoteVerifierKey,
  openLogCheckpoint,
  type PreparedReceipt,
  parseVerifierKey,
  prepareReceiptCheck,
  toHex,
  verifyTlogConsistency,
  verifyTlogInclusion,
  type WitnessTally,
} from '@proto/core';
import {
  checkWitnessedCheckpoint,
  describeTally,
  readWitnessRequirement,
  tallySummary,
} from './log-witnesses.ts';

export type { AnchorCheck } from '@proto/core';

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
  /** Per request (default 10 s). */
  readonly timeoutMs?: number;
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
class SourceUnavailable extends Error {}

function pick(
  source: string | Readonly<Record<string, string>> | undefined,
  key: string,
): string | undefined {
  if (source === undefined) return undefined;
  if (typeof source === 'string') return source;
  return Object.hasOwn(source, key) ? source[key] : undefined;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function confirmationsFor(sources: AnchorVerificationSources, kind: 'evm' | 'bitcoin'): number {
  const m = sources.minConfirmations;
  if (m === undefined) return 1;
  if (typeof m === 'number') return m;
  return m[kind] ?? 1;
}

async function request(
  sources: AnchorVerificationSources,
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; text: string }> {
  const doFetch = sources.fetch ?? fetch;
  let res: Response;
  try {
    res = await doFetch(url, { ...init, signal: AbortSignal.timeout(sources.timeoutMs ?? 10_000) });
  } catch (error) {
    throw new SourceUnavailable(`${new URL(url).origin} unreachable: ${(error as Error).message}`);
  }
  const text = await res.text();
  if (res.status >= 500 || res.status === 429) {
    throw new SourceUnavailable(`${new URL(url).origin} answered HTTP ${res.status}`);
  }
  return { status: res.status, text };
}

/** One JSON-RPC 2.0 call; transport failures and error answers are SourceUnavailable. */
export async function jsonRpc(
  url: string,
  method: string,
  params: readonly unknown[],
  sources: AnchorVerificationSources = {},
): Promise<unknown> {
  const { status, text } = await request(sources, url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  let body: { result?: unknown; error?: { message?: string } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new SourceUnavailable(`${method}: HTTP ${status}, not JSON`);
  }
  if (body.error) throw new SourceUnavailable(`${method}: ${body.error.message ?? 'RPC error'}`);
  return body.result ?? null;
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
    {
      ...(typeof chainId === 'string' ? { chainId } : {}),
      txReceipt,
      tipBlock: typeof tipBlock === 'string' ? tipBlock : 0,
    },
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

function fail(
  message: string,
  kind: AnchorCheck['kind'],
  code: AnchorCheck['code'] = ANCHOR_CHECK_CODES.contradiction,
): AnchorCheck {
  return { status: 'fail', message, code, retryable: false, warnings: [], ...(kind ? { kind } : {}) };
}

function pass(message: string, prepared: PreparedReceipt, tally?: WitnessTally): AnchorCheck {
  return {
    status: 'pass',
    // The witnesses that vouched for the checkpoint ride along in the message and, structured, in `witnesses`.
    message: tally === undefined ? message : `${message}; checkpoint ${describeTally(tally)}`,
    retryable: false,
    warnings: [...prepared.warnings],
    kind: 'log',
    confirmations: 1,
    ...(tally === undefined ? {} : { witnesses: tallySummary(tally) }),
  };
}

async function getJson(
  sources: AnchorVerificationSources,
  url: string,
): Promise<{ status: number; body: unknown }> {
  const answer = await request(sources, url);
  if (answer.status !== 200) return { status: answer.status, body: undefined };
  try {
    return { status: 200, body: JSON.parse(answer.text) as unknown };
  } catch {
    throw new SourceUnavailable(`${new URL(url).origin} answered ${new URL(url).pathname} without JSON`);
  }
}

/** The log's latest signed checkpoint: GET /root/signed's `checkpoint` note, else the note of GET /checkpoint. */
async function fetchCheckpoint(sources: AnchorVerificationSources, logUrl: string): Promise<string> {
  const signed = await getJson(sources, `${logUrl}/root/signed`).catch(() => undefined);
  const note = (signed?.body as { checkpoint?: unknown } | undefined)?.checkpoint;
  if (typeof note === 'string') return note;
  const text = await request(sources, `${logUrl}/checkpoint`);
  if (text.status !== 200) throw new SourceUnavailable(`log ${logUrl} serves no signed checkpoint`);
  return text.text;
}

/**
 * With the log's verifier keys: the receipt's root must be the signed checkpoint's root at the same size,
 * or consistent with it (RFC 9162 consistency proof); a bare receipt's entry is proven against the signed root.
 */
async function verifyLogSigned(
  prepared: PreparedReceipt,
  bundleHash: string,
  source: LogSource,
  logUrl: string,
  index: number,
  sources: AnchorVerificationSources,
): Promise<AnchorCheck> {
  const keys: NoteVerifierKey[] = [];
  for (const text of source.keys ?? []) {
    const key = parseVerifierKey(text);
    if (!key.ok)
      return anchorSkipped(`log verifier key: ${key.error.message}`, ANCHOR_CHECK_CODES.noSource, false, {
        kind: 'log',
      });
    keys.push(key.value);
  }
  const note = source.checkpoint ?? (await fetchCheckpoint(sources, logUrl));
  const checkpoint = openLogCheckpoint(note, keys);
  if (!checkpoint.ok) return fail(`log checkpoint: ${checkpoint.error.message}`, 'log');
  let tally: WitnessTally | undefined;
  if (source.witnesses !== undefined && source.witnesses.length > 0) {
    const requirement = readWitnessRequirement({
      witnesses: source.witnesses,
      ...(source.quorum === undefined ? {} : { quorum: source.quorum }),
    });
    if ('error' in requirement)
      return anchorSkipped(requirement.error, ANCHOR_CHECK_CODES.noSource, false, { kind: 'log' });
    // Before the size comparison: only a witnessed checkpoint may say "not yet" or "consistent".
    const witnessed = checkWitnessedCheckpoint(note, requirement);
    if ('failed' in witnessed) return witnessed.failed;
    tally = witnessed.tally;
  }
  const head = checkpoint.value;
  const signedRoot = toHex(head.root);
  const inclusion = prepared.parsed.inclusion;
  if (inclusion === undefined) {
    const answer = await getJson(sources, `${logUrl}/proof/${index}?tree_size=${head.size}`);
    if (answer.status === 404)
      return fail(`log ${logUrl} has no entry ${index} at tree size ${head.size}`, 'log');
    const proof = (answer.body as { proof?: unknown } | undefined)?.proof;
    const included = verifyTlogInclusion(head, {
      bundleHash,
      index,
      proof: Array.isArray(proof) ? proof : [],
    });
    if (!included.ok) return fail(included.error.message, 'log');
    return pass(
      `the signed checkpoint of size ${head.size} includes the bundle hash at index ${index}`,
      prepared,
      tally,
    );
  }
  if (head.size < inclusion.batchSize) {
    return anchorSkipped(
      `the signed checkpoint (size ${head.size}) is older than the receipt (size ${inclusion.batchSize})`,
      ANCHOR_CHECK_CODES.notYet,
      true,
      { kind: 'log' },
    );
  }
  if (head.size === inclusion.batchSize) {
    if (signedRoot !== inclusion.root)
      return fail(`the signed root of size ${head.size} is not the receipt's batch_root`, 'log');
    return pass(`receipt's root is the signed checkpoint's root (size ${head.size})`, prepared, tally);
  }
  const answer = await getJson(
    sources,
    `${logUrl}/consistency?first=${inclusion.batchSize}&second=${head.size}`,
  );
  const proof = (answer.body as { proof?: unknown } | undefined)?.proof;
  if (answer.status !== 200 || !Array.isArray(proof)) {
    throw new SourceUnavailable(`log ${logUrl} gave no consistency proof (HTTP ${answer.status})`);
  }
  const receiptHead = { size: inclusion.batchSize, root: fromHex(inclusion.root) as Uint8Array };
  const consistent = verifyTlogConsistency(receiptHead, head, proof);
  if (!consistent.ok) return fail(consistent.error.message, 'log');
  return pass(
    `receipt's root (size ${inclusion.batchSize}) is consistent with the signed checkpoint (size ${head.size})`,
    prepared,
    tally,
  );
}

async function verifyLog(
  prepared: PreparedReceipt,
  bundleHash: string,
  sources: AnchorVerificationSources,
): Promise<AnchorCheck> {
  const r = prepared.parsed.receipt as LogAnchorReceipt;
  const logUrl = trimSlash(r.log_url);
  const source =
    sources.logs === true
      ? { url: logUrl }
      : (sources.logs ?? [])
          .map((entry) => (typeof entry === 'string' ? { url: entry } : entry))
          .find((entry) => logUrl === trimSlash(entry.url) || logUrl.startsWith(`${trimSlash(entry.url)}/`));
  if (source === undefined) {
    return anchorSkipped(
      `log ${logUrl} is not among the logs this verifier may call`,
      ANCHOR_CHECK_CODES.noSource,
      false,
      {
        kind: 'log',
      },
    );
  }
  const index = r.log_index ?? r.leaf_index;
  if (index === undefined) return checkLogProofData(prepared, bundleHash, null);
  if (source.witnesses !== undefined && source.witnesses.length > 0 && (source.keys ?? []).length === 0) {
    // Witnesses cosign checkpoints of many logs: without this log's own keys its origin is not pinned.
    return anchorSkipped(
      `witness keys are configured for log ${logUrl} without its verifier keys`,
      ANCHOR_CHECK_CODES.noSource,
      false,
      { kind: 'log' },
    );
  }
  if (source.keys !== undefined && source.keys.length > 0) {
    return verifyLogSigned(prepared, bundleHash, source, logUrl, index, sources);
  }
  // Without the log's keys: its proof endpoint, asked at the receipt's tree size so the answer must
  // reproduce the receipt's root. This trusts the log's answer; give `keys` to check a signed checkpoint.
  const size = prepared.parsed.inclusion?.batchSize;
  const answer = await getJson(
    sources,
    `${logUrl}/proof/${index}${size === undefined ? '' : `?tree_size=${size}`}`,
  );
  if (answer.status === 404) {
    return fail(
      `log ${logUrl} has no entry ${index}${size === undefined ? '' : ` at tree size ${size}`}`,
      'log',
    );
  }
  if (answer.status !== 200) throw new SourceUnavailable(`log ${logUrl} answered HTTP ${answer.status}`);
  const check = checkLogProofData(prepared, bundleHash, answer.body);
  if (check.status !== 'pass') return check;
  return {
    ...check,
    warnings: [...check.warnings, "no log verifier key given: the log's unsigned answer was trusted"],
  };
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
