// `proto verify --log URL --log-key VKEY` without a receipt: the bundle hash looked up in a transparency log
// (GET /lookup/:bundle_hash), its inclusion proof fetched with the log's latest signed checkpoint
// (GET /tlog-proof/:log_index, c2sp.org/tlog-proof) and both checked here: the checkpoint's signature against
// the keys the user trusts, the proof against the checkpoint's root. The log's own word is never taken
// (the lookup's root and proof are unsigned; only its index is used, and a proof passes only for this bundle's leaf).
import { redactUrl, withoutUserinfo } from '@proto/clients/redact-url';
import type { ErrorName, NoteVerifierKey } from '@proto/core';
import { type Answer, fetchAnswer, UnusableAnswer } from './fetch-answer.ts';
import { CliError, type CliIo } from './io.ts';
import { progress } from './progress.ts';
import { checkWitnesses, type WitnessFlags, witnessedLine } from './witness-options.ts';

/**
 * P182, as core's check-outcome.ts reads a source (P161, P169): a log that is not there or answers something that
 * is not an answer (an HTTP error, a page that is not JSON or not a tlog-proof, a note that does not parse, an
 * answer about another entry) says nothing about the bundle: E701, retryable. An entry the log holds but no
 * signed checkpoint covers yet, or does not hold at all (P194: a log cannot prove absence), is E702, retryable.
 * Only a signed answer that contradicts the bundle (a signature that does not verify, a proof that does not lead
 * to the signed root) fails, with E202 or the signature's own code, and for good.
 */
const UNAVAILABLE: ErrorName = 'CIRCUIT_OPEN';
const NOT_YET: ErrorName = 'BACKPRESSURE';

function unavailable(message: string): LogInclusionOutcome {
  return { status: 'fail', code: UNAVAILABLE, message, retryable: true };
}

function notYet(message: string): LogInclusionOutcome {
  return { status: 'fail', code: NOT_YET, message, retryable: true };
}

interface LogInclusionFacts {
  readonly message: string;
  /** True when asking again later may pass (the log unreachable, the entry not yet in a checkpoint). */
  readonly retryable: boolean;
  readonly logIndex?: number;
  readonly treeSize?: number;
  /** With --witness-key: who cosigned the checkpoint the proof was checked against. */
  readonly witnessed?: string;
}

/** P194: a failure always names its cause's code, by type; nothing downstream picks one for it. */
export type LogInclusionOutcome = LogInclusionFacts &
  ({ readonly status: 'pass' } | { readonly status: 'fail'; readonly code: ErrorName });

/**
 * One GET of the log, bounded, timed body included, no redirect (P162); a failure is its one-line message,
 * which the caller reports as the log unavailable.
 */
async function get(url: string, timeoutMs: number): Promise<Answer | string> {
  try {
    return await fetchAnswer(url, { timeoutMs });
  } catch (cause) {
    if (cause instanceof UnusableAnswer) return cause.message;
    throw cause;
  }
}

/** The answer as a JSON object, or undefined (a sign-in page, a truncated body). */
function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Looks `bundleHash` up in the log at `logUrl` and proves its inclusion in a checkpoint signed by `keys`. The
 * outcome's message names the log as redactUrl shows it (P580): a log behind basic auth is given with its
 * credential, which is sent as a header and never printed.
 */
export async function checkLogInclusion(
  bundleHash: string,
  logUrl: string,
  keyTexts: readonly string[],
  timeoutMs: number,
  io: CliIo,
  witnesses: WitnessFlags = { witnessKeys: [] },
): Promise<LogInclusionOutcome> {
  const outcome = await proveLogInclusion(bundleHash, logUrl, keyTexts, timeoutMs, io, witnesses);
  const base = logUrl.replace(/\/+$/, '');
  const shown = shownBase(base);
  if (shown === base) return outcome;
  return { ...outcome, message: withoutUserinfo(outcome.message.split(base).join(shown)) };
}

/** The log's base URL as its messages may name it: no userinfo or query (redactUrl), no trailing slash. */
function shownBase(base: string): string {
  return redactUrl(base).replace(/\/+$/, '');
}

async function proveLogInclusion(
  bundleHash: string,
  logUrl: string,
  keyTexts: readonly string[],
  timeoutMs: number,
  io: CliIo,
  witnesses: WitnessFlags,
): Promise<LogInclusionOutcome> {
  const { parseSignedNote, parseTlogProof, parseVerifierKey, selectCryptoBackend, verifyTlogProof } =
    await import('@proto/core');
  if (keyTexts.length === 0) {
    throw new CliError('--log without --receipt needs --log-key: an unsigned answer proves nothing', {
      showUsage: true,
    });
  }
  const keys = keyTexts.map((text) => {
    const key = parseVerifierKey(text);
    if (!key.ok) throw new CliError(`--log-key ${text.slice(0, 40)}…: ${key.error.message}`);
    return key.value;
  });
  const base = logUrl.replace(/\/+$/, '');

  progress(io, `looking ${bundleHash} up in ${shownBase(base)}`);
  const lookup = await get(`${base}/lookup/${encodeURIComponent(bundleHash)}`, timeoutMs);
  if (typeof lookup === 'string') return unavailable(lookup);
  // P194: a log proves inclusion, never absence, and the 404 is unsigned; the entry may also be on its way in.
  // So it is "not included yet" (E702, retryable), as core's anchor checks name it, not a contradiction.
  if (lookup.status === 404) return notYet(`${bundleHash} is not in ${base} (yet)`);
  if (!lookup.ok) return unavailable(`${base}/lookup: HTTP ${lookup.status}`);
  const found = jsonObject(lookup.text);
  if (found === undefined) return unavailable(`${base}/lookup: the answer is not JSON`);
  const index = found['log_index'];
  if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0) {
    return unavailable(`${base}/lookup: the answer has no log_index`);
  }

  if (witnesses.witnessKeys.length > 0) {
    return proveInWitnessedCheckpoint(bundleHash, base, index, keys, witnesses, timeoutMs, io);
  }

  progress(io, `fetching the inclusion proof of entry ${index}`);
  const proofUrl = `${base}/tlog-proof/${index}`;
  const proofAnswer = await get(proofUrl, timeoutMs);
  if (typeof proofAnswer === 'string') return unavailable(proofAnswer);
  if (proofAnswer.status === 404)
    return notYet(`entry ${index} is not in a signed checkpoint of ${base} yet`);
  if (!proofAnswer.ok) return unavailable(`${proofUrl}: HTTP ${proofAnswer.status}`);
  // The shape first, as P169 reads a checkpoint: what needs no key to send (a sign-in page, a cut answer, a proof
  // of another entry) is not the log's word; only what parses is handed to the signature and proof checks.
  const shaped = parseTlogProof(proofAnswer.text);
  if (!shaped.ok)
    return unavailable(`${proofUrl} answered something that is not a tlog-proof: ${shaped.error.message}`);
  if (shaped.value.index !== index)
    return unavailable(`${proofUrl} answered the proof of another entry (index ${shaped.value.index})`);
  const note = parseSignedNote(shaped.value.checkpoint);
  if (!note.ok)
    return unavailable(`${proofUrl} answered a checkpoint that is not a signed note: ${note.error.message}`);
  const verified = verifyTlogProof(proofAnswer.text, bundleHash, keys, { backend: selectCryptoBackend() });
  if (!verified.ok) {
    return {
      status: 'fail',
      code: verified.error.code,
      message: `log inclusion: ${verified.error.message}`,
      retryable: false,
    };
  }
  const checkpoint = verified.value.checkpoint;
  return {
    status: 'pass',
    message: `entry ${index} of ${checkpoint.origin}, in its signed checkpoint of size ${checkpoint.size}`,
    retryable: false,
    logIndex: index,
    treeSize: checkpoint.size,
  };
}

/**
 * P60: the log publishes at GET /checkpoint the newest checkpoint that reached its witness quorum (the tlog-proof's
 * own checkpoint may be newer and uncosigned), so with witnesses the proof is asked for at that checkpoint's size.
 */
async function proveInWitnessedCheckpoint(
  bundleHash: string,
  base: string,
  index: number,
  keys: readonly NoteVerifierKey[],
  witnesses: WitnessFlags,
  timeoutMs: number,
  io: CliIo,
): Promise<LogInclusionOutcome> {
  const { openLogCheckpoint, parseSignedNote, selectCryptoBackend, verifyTlogInclusion } = await import(
    '@proto/core'
  );
  // P169: what does not even parse as a signed note needs no key to send (a sign-in page, a cut answer), so it
  // says nothing against the bundle: the log unavailable, retryable. A parsed note the key does not sign fails.
  const notANote = (message: string): LogInclusionOutcome =>
    unavailable(`${base}/checkpoint answered a checkpoint that is not a signed note: ${message}`);
  progress(io, `fetching the witnessed checkpoint of ${shownBase(base)}`);
  const answer = await get(`${base}/checkpoint`, timeoutMs);
  if (typeof answer === 'string') return unavailable(answer);
  if (!answer.ok) return unavailable(`${base}/checkpoint: HTTP ${answer.status}`);
  const note = answer.text;
  const parsed = parseSignedNote(note);
  if (!parsed.ok) return notANote(parsed.error.message);
  const opened = openLogCheckpoint(note, keys, { backend: selectCryptoBackend() });
  if (!opened.ok)
    return {
      status: 'fail',
      code: opened.error.code,
      message: `log checkpoint: ${opened.error.message}`,
      retryable: false,
    };
  const witnessed = await checkWitnesses(note, witnesses);
  if (witnessed?.unreadable === true) return notANote(witnessed.error?.message ?? 'unreadable');
  if (witnessed?.error !== undefined) {
    return {
      status: 'fail',
      code: witnessed.error.code,
      message: `log checkpoint: ${witnessed.error.message}`,
      retryable: false,
    };
  }
  const line = witnessed === undefined ? undefined : witnessedLine(witnessed.witnesses);
  const head = opened.value;
  if (index >= head.size) {
    return {
      ...notYet(`entry ${index} is not yet in a witnessed checkpoint of ${base} (size ${head.size})`),
      ...(line === undefined ? {} : { witnessed: line }),
    };
  }
  progress(io, `fetching the inclusion proof of entry ${index} at size ${head.size}`);
  const proofAnswer = await get(`${base}/proof/${index}?tree_size=${head.size}`, timeoutMs);
  if (typeof proofAnswer === 'string') return unavailable(proofAnswer);
  if (!proofAnswer.ok) return unavailable(`${base}/proof/${index}: HTTP ${proofAnswer.status}`);
  const body = jsonObject(proofAnswer.text);
  if (body === undefined) return unavailable(`${base}/proof/${index}: the answer is not JSON`);
  // P161: an answer without a list of hashes is not an empty proof (which would fail the bundle for good).
  const path = body['proof'];
  if (!Array.isArray(path) || !path.every((hash) => typeof hash === 'string'))
    return unavailable(`${base}/proof/${index}: the answer has no proof[] of hashes`);
  const included = verifyTlogInclusion(head, { bundleHash, index, proof: path as string[] });
  if (!included.ok)
    return {
      status: 'fail',
      code: included.error.code,
      message: `log inclusion: ${included.error.message}`,
      retryable: false,
    };
  return {
    status: 'pass',
    message: `entry ${index} of ${head.origin}, in its witnessed checkpoint of size ${head.size}`,
    retryable: false,
    logIndex: index,
    treeSize: head.size,
    ...(line === undefined ? {} : { witnessed: line }),
  };
}
