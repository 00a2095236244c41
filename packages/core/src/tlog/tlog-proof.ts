// C2SP tlog-proof text: a signed checkpoint, an index and its inclusion proof, verifiable offline.
// DECISIONS D18 (offline verification of log inclusion; no live call with a recent checkpoint), c2sp.org/tlog-proof.
import { decodeBase64Strict, encodeBase64 } from '../encoding/index.ts';
import { type CoreError, coreError, err, ok, type Result } from '../result.ts';
import {
  type OpenLogCheckpointOptions,
  openLogCheckpoint,
  type VerifiedLogCheckpoint,
} from './checkpoint.ts';
import type { NoteVerifierKey } from './note.ts';
import { type TlogInclusionVerified, verifyTlogInclusion } from './proofs.ts';

export const TLOG_PROOF_HEADER = 'c2sp.org/tlog-proof@v1';

export interface TlogProof {
  readonly index: number;
  readonly proof: readonly Uint8Array[];
  /** The signed checkpoint note, verbatim. */
  readonly checkpoint: string;
  /** Opaque, unauthenticated extra data. */
  readonly extra?: Uint8Array;
}

const DECIMAL = /^(0|[1-9][0-9]*)$/;
const malformed = (message: string): CoreError => coreError('BUNDLE_SCHEMA_INVALID', message);

export function formatTlogProof(proof: TlogProof): string {
  const lines = [TLOG_PROOF_HEADER];
  if (proof.extra !== undefined) lines.push(`extra ${encodeBase64(proof.extra)}`);
  lines.push(`index ${proof.index}`);
  for (const hash of proof.proof) lines.push(encodeBase64(hash));
  return `${lines.join('\n')}\n\n${proof.checkpoint}`;
}

export function parseTlogProof(text: unknown): Result<TlogProof> {
  if (typeof text !== 'string') return err(malformed('tlog-proof must be text'));
  const split = text.indexOf('\n\n');
  if (split < 0) return err(malformed('tlog-proof has no blank line before its checkpoint'));
  const lines = text.slice(0, split).split('\n');
  const checkpoint = text.slice(split + 2);
  if (lines.shift() !== TLOG_PROOF_HEADER)
    return err(malformed(`tlog-proof must start with ${TLOG_PROOF_HEADER}`));
  let extra: Uint8Array | undefined;
  if (lines[0]?.startsWith('extra ')) {
    extra = decodeBase64Strict((lines.shift() as string).slice('extra '.length));
    if (extra === undefined) return err(malformed('tlog-proof extra line is not base64'));
  }
  const indexLine = lines.shift() ?? '';
  const indexText = indexLine.startsWith('index ') ? indexLine.slice('index '.length) : '';
  if (!DECIMAL.test(indexText) || !Number.isSafeInteger(Number(indexText))) {
    return err(malformed('tlog-proof needs an "index N" line'));
  }
  const proof: Uint8Array[] = [];
  for (const line of lines) {
    const hash = decodeBase64Strict(line);
    if (hash === undefined || hash.byteLength !== 32)
      return err(malformed('tlog-proof hash lines must be base64 of 32 bytes'));
    proof.push(hash);
  }
  return ok({ index: Number(indexText), proof, checkpoint, ...(extra === undefined ? {} : { extra }) });
}

export interface TlogProofVerified {
  readonly checkpoint: VerifiedLogCheckpoint;
  readonly inclusion: TlogInclusionVerified;
}

/** Parses a tlog-proof, opens its checkpoint with the trusted keys, and checks `bundleHash` at its index. */
export function verifyTlogProof(
  text: unknown,
  bundleHash: string,
  keys: readonly NoteVerifierKey[],
  options: OpenLogCheckpointOptions = {},
): Result<TlogProofVerified> {
  const parsed = parseTlogProof(text);
  if (!parsed.ok) return parsed;
  const checkpoint = openLogCheckpoint(parsed.value.checkpoint, keys, options);
  if (!checkpoint.ok) return checkpoint;
  const inclusion = verifyTlogInclusion(checkpoint.value, {
    bundleHash,
    index: parsed.value.index,
    proof: parsed.value.proof,
  });
  if (!inclusion.ok) return inclusion;
  return ok({ checkpoint: checkpoint.value, inclusion: inclusion.value });
}
