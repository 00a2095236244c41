// A log receipt's check (anchor-client.ts's third kind, after EVM and Bitcoin): with the log's verifier keys,
// against its signed (and optionally witnessed) checkpoint; without them, against its proof endpoint's answer
// at the receipt's tree size. D12, P59, P60; SPEC.md "Anchor receipt".
import {
  ANCHOR_CHECK_CODES,
  type AnchorCheck,
  anchorSkipped,
  checkLogProofData,
  fromHex,
  type LogAnchorReceipt,
  type NoteVerifierKey,
  openLogCheckpoint,
  type PreparedReceipt,
  parseSignedNote,
  parseVerifierKey,
  sourceMalformed,
  toHex,
  verifyTlogConsistency,
  verifyTlogInclusion,
  type WitnessTally,
} from '@proto/core';
import {
  type AnchorVerificationSources,
  type LogSource,
  request,
  SourceUnavailable,
  trimSlash,
} from './anchor-sources.ts';
import {
  checkWitnessedCheckpoint,
  describeTally,
  readWitnessRequirement,
  tallySummary,
} from './log-witnesses.ts';

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
  // P169: a note that does not even parse (an HTML page, a note cut short, a garbled line) is anyone's answer
  // and says nothing about the receipt: the log unavailable, as P161 reads every answer without its shape. A
  // note that parses but is not signed by the configured key is refused as a signature failure: giving it
  // `skipped` gains a key-less party nothing over an HTTP 503, and `fail` keeps a forgery visible.
  const signed = parseSignedNote(note);
  if (!signed.ok)
    return sourceMalformed(
      `log ${logUrl} answered a checkpoint that is not a signed note: ${signed.error.message}`,
      'log',
    );
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
    // An error status or an answer without a proof list says nothing about the entry (P161): only a
    // well-formed proof that does not lead to the signed root is a contradiction.
    if (answer.status !== 200) throw new SourceUnavailable(`log ${logUrl} answered HTTP ${answer.status}`);
    const proof = (answer.body as { proof?: unknown } | null | undefined)?.proof;
    if (!Array.isArray(proof) || !proof.every((p) => typeof p === 'string')) {
      throw new SourceUnavailable(`log ${logUrl} answered without a proof[] of entry ${index}`);
    }
    const included = verifyTlogInclusion(head, { bundleHash, index, proof });
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

/**
 * A log URL as fetch would ask it (dot segments resolved, %2e included), without a trailing slash; undefined
 * when it is not a plain http(s) base: user-info, a query or a fragment would change what is asked (P154).
 */
function resolvedLogUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return undefined;
  return trimSlash(url.href);
}

export async function verifyLog(
  prepared: PreparedReceipt,
  bundleHash: string,
  sources: AnchorVerificationSources,
): Promise<AnchorCheck> {
  const r = prepared.parsed.receipt as LogAnchorReceipt;
  // Compared, and asked, as a fetch would resolve it: `/v1/../evil` is `/evil`, outside a log configured at /v1.
  const logUrl = resolvedLogUrl(r.log_url);
  const source =
    logUrl === undefined
      ? undefined
      : sources.logs === true
        ? { url: logUrl }
        : (sources.logs ?? [])
            .map((entry) => (typeof entry === 'string' ? { url: entry } : entry))
            .find((entry) => {
              const base = resolvedLogUrl(entry.url);
              return base !== undefined && (logUrl === base || logUrl.startsWith(`${base}/`));
            });
  if (source === undefined || logUrl === undefined) {
    return anchorSkipped(
      `log ${trimSlash(r.log_url)} is not among the logs this verifier may call`,
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
