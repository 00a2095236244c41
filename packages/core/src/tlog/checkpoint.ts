// C2SP tlog-checkpoint bodies (origin, tree size, base64 root) and opening a signed checkpoint with trusted keys.
// DECISIONS D18 (checkpoint text, signed note with Ed25519 and ML-DSA-65 lines), c2sp.org/tlog-checkpoint.
import type { CryptoBackend } from '../crypto/backend.ts';
import { decodeBase64Strict, encodeBase64 } from '../encoding/index.ts';
import { type CoreError, coreError, err, ok, type Result } from '../result.ts';
import {
  hasControlCharacter,
  type NoteSigner,
  type NoteVerifierKey,
  signNote,
  type VerifyNoteOptions,
  verifySignedNote,
} from './note.ts';

export interface LogCheckpoint {
  readonly origin: string;
  /** Number of leaves. */
  readonly size: number;
  /** RFC 9162 root at that size (32 bytes). */
  readonly root: Uint8Array;
  /** Opaque extension lines (we write none: C2SP does not recommend them). */
  readonly extensions: readonly string[];
}

export interface VerifiedLogCheckpoint extends LogCheckpoint {
  /** The signed note exactly as verified. */
  readonly note: string;
  readonly verifiedBy: readonly NoteVerifierKey[];
}

const ROOT_LENGTH = 32;
const DECIMAL = /^(0|[1-9][0-9]*)$/;

const malformed = (message: string): CoreError => coreError('BUNDLE_SCHEMA_INVALID', message);

function checkLine(line: string, what: string): CoreError | undefined {
  if (line.length === 0) return malformed(`checkpoint ${what} must be non-empty`);
  if (hasControlCharacter(line, false))
    return malformed(`checkpoint ${what} contains a newline or control character`);
  return undefined;
}

/** The note text `<origin>\n<size>\n<base64 root>\n[extensions\n]`. */
export function formatLogCheckpoint(
  checkpoint: Omit<LogCheckpoint, 'extensions'> & Partial<LogCheckpoint>,
): Result<string> {
  const bad = checkLine(checkpoint.origin ?? '', 'origin');
  if (bad) return err(bad);
  if (!Number.isSafeInteger(checkpoint.size) || checkpoint.size < 0) {
    return err(malformed('checkpoint size must be a non-negative safe integer'));
  }
  if (!(checkpoint.root instanceof Uint8Array) || checkpoint.root.byteLength !== ROOT_LENGTH) {
    return err(malformed('checkpoint root must be 32 bytes'));
  }
  const extensions = checkpoint.extensions ?? [];
  for (const line of extensions) {
    const badExtension = checkLine(line, 'extension line');
    if (badExtension) return err(badExtension);
  }
  const lines = [checkpoint.origin, String(checkpoint.size), encodeBase64(checkpoint.root), ...extensions];
  return ok(`${lines.join('\n')}\n`);
}

/** Parses checkpoint note text (not a signed note: see openLogCheckpoint). */
export function parseLogCheckpoint(text: unknown): Result<LogCheckpoint> {
  if (typeof text !== 'string' || !text.endsWith('\n'))
    return err(malformed('checkpoint text must end with a newline'));
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) return err(malformed('checkpoint text needs origin, size and root lines'));
  const [origin = '', sizeText = '', rootText = '', ...extensions] = lines;
  const bad = checkLine(origin, 'origin');
  if (bad) return err(bad);
  if (!DECIMAL.test(sizeText))
    return err(malformed('checkpoint size must be decimal without leading zeroes'));
  const size = Number(sizeText);
  if (!Number.isSafeInteger(size)) return err(malformed('checkpoint size is too large'));
  const root = decodeBase64Strict(rootText);
  if (root === undefined || root.byteLength !== ROOT_LENGTH) {
    return err(malformed('checkpoint root must be the base64 of 32 bytes'));
  }
  for (const line of extensions) {
    const badExtension = checkLine(line, 'extension line');
    if (badExtension) return err(badExtension);
  }
  return ok({ origin, size, root, extensions });
}

/** Formats and signs a checkpoint; the log's key name is its origin (C2SP recommends it). */
export function signLogCheckpoint(
  checkpoint: Omit<LogCheckpoint, 'extensions'> & Partial<LogCheckpoint>,
  signers: readonly NoteSigner[],
  backend?: CryptoBackend,
): Result<string> {
  const text = formatLogCheckpoint(checkpoint);
  if (!text.ok) return text;
  return signNote(text.value, signers, backend);
}

export interface OpenLogCheckpointOptions extends VerifyNoteOptions {
  /**
   * The origin the caller expects. Default: the keys' common name when they share one (a log signs
   * under its origin), else no origin check.
   */
  readonly origin?: string;
}

/**
 * Verifies a signed checkpoint against trusted verifier keys (see verifySignedNote for the rules;
 * by default every given key must have signed), then parses its text and checks the origin.
 */
export function openLogCheckpoint(
  note: unknown,
  keys: readonly NoteVerifierKey[],
  options: OpenLogCheckpointOptions = {},
): Result<VerifiedLogCheckpoint> {
  const verified = verifySignedNote(note, keys, options);
  if (!verified.ok) return verified;
  const checkpoint = parseLogCheckpoint(verified.value.text);
  if (!checkpoint.ok) return checkpoint;
  const names = new Set(keys.map((k) => k.name));
  const expected = options.origin ?? (names.size === 1 ? [...names][0] : undefined);
  if (expected !== undefined && checkpoint.value.origin !== expected) {
    return err(
      malformed(
        `checkpoint origin ${JSON.stringify(checkpoint.value.origin)} is not ${JSON.stringify(expected)}`,
      ),
    );
  }
  return ok({ ...checkpoint.value, note: note as string, verifiedBy: verified.value.verifiedBy });
}
