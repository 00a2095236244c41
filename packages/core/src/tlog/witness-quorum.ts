// The verifier's count of witness cosignatures on a published checkpoint (c2sp.org/tlog-cosignature):
// how many distinct configured witnesses cosigned this exact checkpoint text. docs/project-decisions.md P59.
//
// cosignature.ts's verifyCosignatures is the strict signed-note reading (a bad or repeated line from a known
// key rejects the note). A verifier counting a quorum instead counts: a witness whose line does not verify
// over this text (a cosignature of another checkpoint, a split view) adds nothing, a witness that appears
// twice counts once, and only the count against k decides. A log cannot lower the count of a witness that
// did cosign by adding junk lines, and a configured witness's bad line is reported, not hidden.
import type { CryptoBackend } from '../crypto/backend.ts';
import { selectCryptoBackend } from '../crypto/select-backend.ts';
import { coreError, err, ok, type Result } from '../result.ts';
import { type CosignerKey, cosignedMessage, type VerifiedCosignature } from './cosignature.ts';
import { type NoteSignature, parseSignedNote } from './note.ts';

/** timestamp (8) ‖ Ed25519 signature (64): what follows the key ID of a cosignature/v1 line. */
const TIMESTAMPED_SIGNATURE = 8 + 64;

/** A configured witness's line that was not counted, and why. */
export interface RefusedCosignature {
  readonly key: CosignerKey;
  readonly reason: string;
}

export interface WitnessTally {
  /** One entry per distinct configured witness whose cosignature verifies over this checkpoint text. */
  readonly cosigned: readonly VerifiedCosignature[];
  /** Configured witnesses with a line that does not verify (and no valid one). */
  readonly refused: readonly RefusedCosignature[];
  /** k: how many distinct witnesses are required. */
  readonly quorum: number;
  readonly met: boolean;
}

/** Checks one cosignature/v1 line of `key` over `text`; returns its timestamp, or why it does not count. */
export function checkCosignatureLine(
  text: string,
  line: NoteSignature,
  key: CosignerKey,
  backend: CryptoBackend = selectCryptoBackend(),
): { readonly timestamp: number } | { readonly reason: string } {
  if (line.signature.byteLength !== TIMESTAMPED_SIGNATURE)
    return { reason: 'not a cosignature/v1 line (wrong length)' };
  const stamp = new DataView(line.signature.buffer, line.signature.byteOffset, 8).getBigUint64(0, false);
  if (stamp === 0n || stamp > BigInt(Number.MAX_SAFE_INTEGER)) return { reason: 'timestamp out of range' };
  const timestamp = Number(stamp);
  const message = cosignedMessage(text, timestamp);
  if (!backend.verify('ed25519', key.publicKey, message, line.signature.slice(8)))
    return { reason: 'does not verify over this checkpoint (a cosignature of another checkpoint?)' };
  return { timestamp };
}

/**
 * Counts the distinct configured witnesses that cosigned `note`'s checkpoint text. Lines of unknown keys
 * (the log's own signatures, witnesses not configured here) are ignored. Errors only when the note itself
 * does not parse or the quorum is not 1..n; a quorum not met is `met: false`, for the caller's own code.
 */
export function tallyWitnessCosignatures(
  note: unknown,
  witnesses: readonly CosignerKey[],
  quorum: number,
  backend: CryptoBackend = selectCryptoBackend(),
): Result<WitnessTally> {
  if (!Number.isSafeInteger(quorum) || quorum < 1 || quorum > witnesses.length)
    return err(
      coreError('BUNDLE_SCHEMA_INVALID', 'witness quorum must be between 1 and the number of witnesses'),
    );
  const parsed = parseSignedNote(note);
  if (!parsed.ok) return parsed;
  const cosigned = new Map<CosignerKey, VerifiedCosignature>();
  const refused = new Map<CosignerKey, string>();
  for (const line of parsed.value.signatures) {
    const key = witnesses.find((k) => k.name === line.keyName && k.keyId === line.keyId);
    if (key === undefined || cosigned.has(key)) continue;
    const checked = checkCosignatureLine(parsed.value.text, line, key, backend);
    if ('reason' in checked) {
      refused.set(key, checked.reason);
      continue;
    }
    refused.delete(key);
    cosigned.set(key, { key, timestamp: checked.timestamp });
  }
  return ok({
    cosigned: [...cosigned.values()],
    refused: [...refused].map(([key, reason]) => ({ key, reason })),
    quorum,
    met: cosigned.size >= quorum,
  });
}
