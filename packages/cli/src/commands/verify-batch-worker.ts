// Worker thread of `proto verify --batch`: one verifier built once, then one file per message.
// Issue 14 item 3 (the same engine as POST /verify, locally on all cores).
import { closeSync, constants, fstatSync, lstatSync, openSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import {
  addExternalOutcomes,
  attestationOutcomeInHand,
  createVerifier,
  parseStrictJsonBytes,
  prototypeMemberMessage,
  prototypeMemberPath,
  receiptAnalyzeOptions,
  receiptOutcomeInHand,
  unverifiedEvidenceOutcomes,
  type VerifierOptions,
} from '@proto/core';
import { rfc3339Instant } from '../at-option.ts';
import { CliError, readDescriptorBounded, terminalSafeJson, twoReadingsMessage } from '../io.ts';

export interface BatchWorkerSetup {
  readonly options: Omit<VerifierOptions, 'clock'>;
  /** --at as given, an RFC 3339 instant (a clock cannot cross threads). */
  readonly at?: string;
  readonly key?: string;
}

const setup = workerData as BatchWorkerSetup;
// Checked by the command before the workers start (exit 2); read here the same way, a leap second included.
const atMs = setup.at === undefined ? undefined : rfc3339Instant(setup.at);
if (setup.at !== undefined && atMs === undefined)
  throw new Error(`--at ${setup.at} is not an RFC 3339 instant`);
const at = atMs === undefined ? undefined : new Date(atMs);
const built = createVerifier({ ...setup.options, ...(at === undefined ? {} : { clock: () => at }) });
if (!built.ok) throw new Error(built.error.message);
const verifier = built.value;

/**
 * P527: a directory's entries were chosen by whoever filled it (an archive, an inbox): a FIFO blocked the worker for
 * good and a link led anywhere (another FIFO, /dev/zero, a file outside the directory). Such an entry is read only as
 * a regular file, opened without following a link and without waiting on a FIFO, then checked on the open descriptor.
 * Answers the bytes, or why the entry is not read.
 */
function directoryEntryBytes(file: string): Uint8Array | string {
  if (lstatSync(file).isSymbolicLink())
    return 'a symbolic link in a --batch directory is not followed (name the file itself to read it)';
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile())
      return 'not a regular file (a FIFO, device or socket in a --batch directory is not read)';
    return readDescriptorBounded(fd, file);
  } finally {
    closeSync(fd);
  }
}

/** A file the user named: through a link, or a pipe, as `proto verify FILE` reads it; at most MAX_INPUT_BYTES (P528). */
function namedFileBytes(file: string): Uint8Array {
  const fd = openSync(file, 'r');
  try {
    return readDescriptorBounded(fd, file);
  } finally {
    closeSync(fd);
  }
}

function refusedLine(file: string, message: string): { line: string; verified: boolean } {
  return {
    line: terminalSafeJson({ file, verified: false, errors: [`${file}: ${message}`] }),
    verified: false,
  };
}

function lineFor(file: string, fromDirectory: boolean): { line: string; verified: boolean } {
  let input: unknown;
  try {
    const bytes = fromDirectory ? directoryEntryBytes(file) : namedFileBytes(file);
    if (typeof bytes === 'string') return refusedLine(file, bytes);
    // P318: read as `proto verify FILE` reads (io.ts): strict UTF-8 (P232), one canonical reading (no member named
    // twice, no 1e400, no lone surrogate: row c), where readFileSync's 'utf8' and JSON.parse resolved both silently.
    const parsed = parseStrictJsonBytes(bytes);
    if (!parsed.ok) {
      const message = `${file}: ${parsed.error.message}`;
      return { line: terminalSafeJson({ file, verified: false, errors: [message] }), verified: false };
    }
    input = parsed.value;
    // P336, P381: a member reaching a prototype is refused as `proto verify FILE` (io.ts) and the service refuse it.
    const at = prototypeMemberPath(input);
    if (at !== undefined) {
      const message = `${file}: ${prototypeMemberMessage(at)}`;
      return { line: terminalSafeJson({ file, verified: false, errors: [message] }), verified: false };
    }
  } catch (error) {
    // A CliError (P528's cap) names the file already.
    const message = error instanceof CliError ? error.message : `${file}: ${(error as Error).message}`;
    return { line: terminalSafeJson({ file, verified: false, errors: [message] }), verified: false };
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    const message = `${file}: expected a signed bundle or a /verify request object`;
    return { line: terminalSafeJson({ file, verified: false, errors: [message] }), verified: false };
  }
  const record = input as Record<string, unknown>;
  const twice = twoReadingsMessage(record);
  if (twice !== undefined) {
    return {
      line: terminalSafeJson({ file, verified: false, errors: [`${file}: ${twice}`] }),
      verified: false,
    };
  }
  const request: Record<string, unknown> =
    'signed_bundle' in record ? { ...record } : { signed_bundle: record };
  if (setup.key !== undefined) request['public_key_b64'] = setup.key;
  const receipt = request['anchor_receipt'];
  const hasReceipt = receipt !== undefined && receipt !== null;
  // P385: the bundle's hashes are computed only for a request with a receipt (P123), as the service computes them.
  const analysis = verifier.analyze(request, hasReceipt ? receiptAnalyzeOptions(receipt) : undefined);
  const now = at ?? new Date();
  const verdict = verifier.finalize(analysis, now);
  // P385 (P380's rule, core's `receiptOutcomeInHand`): a receipt the bundle's own hashes or path contradict fails the
  // line, as POST /verify/batch with no anchor sources and `proto verify FILE --receipt` fail it.
  const outcome =
    hasReceipt && verdict.verified
      ? receiptOutcomeInHand(receipt, analysis, verifier.profile, NOT_CHECKED)
      : undefined;
  const contradicted = outcome?.status === 'fail';
  // P437 (core's `attestationOutcomeInHand`): so does an attestation the bundle or the clock contradicts, as POST
  // /verify/batch with no trusted keys and `proto verify FILE` without --attestation-key fail it.
  const attestation = request['jurisdiction_attestation'];
  const attested =
    attestation !== undefined && attestation !== null && verdict.verified
      ? attestationOutcomeInHand(
          attestation,
          analysis,
          // P452: --attestation-max-age-days reaches the worker as the verifier's option.
          { now, profile: verifier.profile, maxAgeMs: verifier.settings.attestationMaxAgeDays * 86_400_000 },
          NOT_CHECKED,
        )
      : undefined;
  const refuted = attested?.status === 'fail';
  if (!verdict.verified) {
    // P454: the evidence of a bundle that is not verified is skipped in the service's words (core's), not blamed on
    // --batch: POST /verify/batch would not look it up either.
    const evidence = {
      receipt: hasReceipt,
      attestation: attestation !== undefined && attestation !== null,
    };
    const answer = addExternalOutcomes(verdict, unverifiedEvidenceOutcomes(evidence));
    return { line: terminalSafeJson({ file, ...answer }), verified: false };
  }
  const failed = [...(contradicted ? [outcome] : []), ...(refuted ? [attested] : [])];
  const response = failed.length > 0 ? addExternalOutcomes(verdict, failed) : verdict;
  // P319: POST /verify/batch checks a request's receipt and attestation; a batch here has no sources or keys to check
  // them with, so it says so rather than answer as if none were given. A contradicted one was checked: it failed.
  const unchecked = ['anchor_receipt', 'jurisdiction_attestation']
    .filter((member) => !(member === 'anchor_receipt' && contradicted))
    .filter((member) => !(member === 'jurisdiction_attestation' && refuted))
    .filter((member) => request[member] !== undefined && request[member] !== null)
    .map((member) => `${member} ${NOT_CHECKED_TAIL}`);
  const answer =
    unchecked.length === 0
      ? response
      : { ...response, warnings: [...(response.warnings ?? []), ...unchecked] };
  return { line: terminalSafeJson({ file, ...answer }), verified: response.verified };
}

const NOT_CHECKED_TAIL = 'not checked: proto verify --batch checks no evidence (use proto verify FILE)';
const NOT_CHECKED = `anchor_receipt ${NOT_CHECKED_TAIL}`;

parentPort?.on('message', (task: { index: number; file: string; fromDirectory: boolean }) => {
  parentPort?.postMessage({ index: task.index, ...lineFor(task.file, task.fromDirectory) });
});
