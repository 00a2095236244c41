// The tlog-witness add-checkpoint exchange (c2sp.org/tlog-witness): the request body, and the pure decision a
// witness makes about it given what it cosigned before. docs/project-decisions.md P46, P48.
import { decodeBase64Strict, encodeBase64, toHex } from '../encoding/index.ts';
import type { ErrorName } from '../errors.ts';
import { rfc9162EmptyRoot as emptyRoot } from '../merkle/rfc9162.ts';
import { type CoreError, coreError, err, ok, type Result } from '../result.ts';
import { type LogCheckpoint, openLogCheckpoint, parseLogCheckpoint } from './checkpoint.ts';
import type { NoteVerifierKey } from './note.ts';
import { verifyTlogConsistency } from './proofs.ts';

/** The spec's bound on consistency proof lines. */
export const MAX_WITNESS_PROOF_LINES = 63;
const DECIMAL = /^(0|[1-9][0-9]*)$/;

const malformed = (message: string): CoreError => coreError('BUNDLE_SCHEMA_INVALID', message);

export interface AddCheckpointRequest {
  readonly oldSize: number;
  readonly proof: readonly Uint8Array[];
  /** The signed checkpoint note, as submitted. */
  readonly checkpoint: string;
}

export function formatAddCheckpointRequest(request: AddCheckpointRequest): string {
  const proof = request.proof.map((hash) => `${encodeBase64(hash)}\n`).join('');
  return `old ${request.oldSize}\n${proof}\n${request.checkpoint}`;
}

export function parseAddCheckpointRequest(body: unknown): Result<AddCheckpointRequest> {
  if (typeof body !== 'string') return err(malformed('add-checkpoint body must be text'));
  const blank = body.indexOf('\n\n');
  if (blank < 0) return err(malformed('add-checkpoint body needs an empty line before the checkpoint'));
  const lines = body.slice(0, blank).split('\n');
  const [first = '', ...proofLines] = lines;
  const size = first.startsWith('old ') ? first.slice(4) : '';
  if (!DECIMAL.test(size) || !Number.isSafeInteger(Number(size)))
    return err(malformed('add-checkpoint body must start with "old <size>"'));
  if (proofLines.length > MAX_WITNESS_PROOF_LINES)
    return err(malformed(`at most ${MAX_WITNESS_PROOF_LINES} consistency proof lines`));
  const proof: Uint8Array[] = [];
  for (const line of proofLines) {
    const hash = decodeBase64Strict(line);
    if (hash === undefined || hash.byteLength !== 32)
      return err(malformed('each consistency proof line must be one base64 SHA-256 hash'));
    proof.push(hash);
  }
  return ok({ oldSize: Number(size), proof, checkpoint: body.slice(blank + 2) });
}

/** What the witness last cosigned for one log (none yet: size 0, the empty tree). */
export interface WitnessedHead {
  readonly size: number;
  readonly root: Uint8Array;
}

/** HTTP status the spec assigns to each refusal. */
export type AddCheckpointRefusal =
  | { readonly status: 400; readonly reason: string }
  | {
      readonly status: 403;
      readonly reason: string;
      /** Why the log's signature failed: E100/E101 a bad line from a log key, E103 none, E001 malformed. */
      readonly code: ErrorName;
    }
  | { readonly status: 404; readonly reason: string }
  | { readonly status: 409; readonly reason: string; readonly knownSize: number }
  | { readonly status: 422; readonly reason: string };

export type AddCheckpointDecision =
  | { readonly accept: true; readonly checkpoint: LogCheckpoint; readonly text: string }
  | ({ readonly accept: false } & AddCheckpointRefusal);

export interface WitnessedLog {
  readonly origin: string;
  /** The log's checkpoint keys; one valid signature from one of them is enough (signed-note). */
  readonly keys: readonly NoteVerifierKey[];
}

/**
 * Decides an add-checkpoint request against the trusted logs and the head last cosigned for its
 * origin (`known`, undefined when never cosigned). Pure: the caller holds the lock that makes the
 * check and the update of `known` one step, and persists before answering.
 */
export function decideAddCheckpoint(
  request: AddCheckpointRequest,
  logs: readonly WitnessedLog[],
  known: WitnessedHead | undefined,
): AddCheckpointDecision {
  const unverified = parseCheckpointBody(request.checkpoint);
  if (!unverified.ok) return { accept: false, status: 400, reason: unverified.error.message };
  const log = logs.find((l) => l.origin === unverified.value.origin);
  if (log === undefined) return { accept: false, status: 404, reason: 'unknown log origin' };
  const opened = openLogCheckpoint(request.checkpoint, log.keys, { require: 'any', origin: log.origin });
  if (!opened.ok)
    return { accept: false, status: 403, reason: opened.error.message, code: opened.error.code };
  const checkpoint = opened.value;
  if (request.oldSize > checkpoint.size)
    return { accept: false, status: 400, reason: 'old size is larger than the checkpoint size' };
  const head = known ?? { size: 0, root: emptyRoot() };
  if (request.oldSize !== head.size) {
    return {
      accept: false,
      status: 409,
      reason: 'old size is not the last cosigned size',
      knownSize: head.size,
    };
  }
  if (checkpoint.size === 0 && toHex(checkpoint.root) !== toHex(emptyRoot()))
    return { accept: false, status: 422, reason: 'a checkpoint of size 0 must have the empty root' };
  if (head.size === 0 && request.proof.length > 0)
    return { accept: false, status: 422, reason: 'no consistency proof is allowed from size 0' };
  const consistent = verifyTlogConsistency(head, checkpoint, request.proof);
  if (!consistent.ok) return { accept: false, status: 422, reason: consistent.error.message };
  const text = request.checkpoint.slice(0, request.checkpoint.lastIndexOf('\n\n') + 1);
  return { accept: true, checkpoint, text };
}

function parseCheckpointBody(note: string): Result<LogCheckpoint> {
  const split = note.lastIndexOf('\n\n');
  if (split < 0) return err(malformed('checkpoint is not a signed note'));
  return parseLogCheckpoint(note.slice(0, split + 1));
}
