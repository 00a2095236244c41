// Witness cosignatures on log checkpoints (c2sp.org/tlog-cosignature, cosignature/v1 with Ed25519) and
// the k-of-n witness quorum verifiers require before trusting a checkpoint. docs/project-decisions.md P46, P47.
import { createHash } from 'node:crypto';
import type { CryptoBackend } from '../crypto/backend.ts';
import { selectCryptoBackend } from '../crypto/select-backend.ts';
import { concatBytes, decodeBase64Strict, encodeBase64, utf8Encode } from '../encoding/index.ts';
import { type CoreError, coreError, err, ok, type Result } from '../result.ts';
import { formatSignedNote, isValidKeyName, type NoteSignature, parseSignedNote } from './note.ts';

/** Signature type byte tlog-cosignature assigns to Ed25519 cosignature/v1 (key IDs and vkeys). */
export const COSIGNATURE_TYPE_ED25519 = 0x04;
const ED25519_PUBLIC = 32;
const ED25519_SIGNATURE = 64;
/** timestamp (8) ‖ Ed25519 signature (64): the bytes after the key ID of a cosignature line. */
const TIMESTAMPED_SIGNATURE = 8 + ED25519_SIGNATURE;
const MAX_TIMESTAMP = 2n ** 63n - 1n;

const malformed = (message: string): CoreError => coreError('BUNDLE_SCHEMA_INVALID', message);

/** A witness's public identity: the key name it signs under and its Ed25519 public key. */
export interface CosignerKey {
  readonly name: string;
  readonly keyId: number;
  readonly publicKey: Uint8Array;
}

export interface Cosigner extends CosignerKey {
  /** SDK layout Ed25519 secret key: seed ‖ public key (crypto/backend.ts). */
  readonly secretKey: Uint8Array;
}

/** A cosignature line that verified: who signed and when (POSIX seconds). */
export interface VerifiedCosignature {
  readonly key: CosignerKey;
  readonly timestamp: number;
}

/** key ID = SHA-256(name ‖ 0x0A ‖ 0x04 ‖ Ed25519 public key)[:4], big-endian. */
export function cosignerKeyId(name: string, publicKey: Uint8Array): number {
  const hash = createHash('sha256')
    .update(utf8Encode(name))
    .update(Uint8Array.of(0x0a, COSIGNATURE_TYPE_ED25519))
    .update(publicKey)
    .digest();
  return hash.readUInt32BE(0);
}

export function cosignerKey(name: string, publicKey: Uint8Array): Result<CosignerKey> {
  if (!isValidKeyName(name)) return err(malformed('witness name must be non-empty, without spaces or "+"'));
  if (!(publicKey instanceof Uint8Array) || publicKey.byteLength !== ED25519_PUBLIC)
    return err(malformed('witness public key must be 32 Ed25519 bytes'));
  return ok({ name, keyId: cosignerKeyId(name, publicKey), publicKey: publicKey.slice() });
}

/** vkey spelling (c2sp.org/signed-note): `<name>+<8 hex key ID>+<base64(0x04 ‖ public key)>`. */
export function formatCosignerKey(key: CosignerKey): string {
  const material = concatBytes(Uint8Array.of(COSIGNATURE_TYPE_ED25519), key.publicKey);
  return `${key.name}+${key.keyId.toString(16).padStart(8, '0')}+${encodeBase64(material)}`;
}

/** Parses a witness vkey; the type byte must be 0x04 and the key ID must match name and key. */
export function parseCosignerKey(vkey: unknown): Result<CosignerKey> {
  if (typeof vkey !== 'string') return err(malformed('witness key must be a string'));
  const match = /^([^+]*)\+([0-9a-f]{8})\+(.*)$/s.exec(vkey.trim());
  if (match === null) return err(malformed('witness key must be <name>+<8 hex key id>+<base64 key>'));
  const [, name = '', idHex = '', material = ''] = match;
  const bytes = decodeBase64Strict(material);
  if (bytes === undefined || bytes.byteLength !== 1 + ED25519_PUBLIC || bytes[0] !== COSIGNATURE_TYPE_ED25519)
    return err(malformed('witness key must be type 0x04 (cosignature/v1 Ed25519) with a 32-byte key'));
  const key = cosignerKey(name, bytes.slice(1));
  if (!key.ok) return key;
  if (key.value.keyId !== Number.parseInt(idHex, 16))
    return err(coreError('KID_MISMATCH', `witness key ${name}: key ID does not match name and key`));
  return key;
}

/** The message a cosignature/v1 signs: header line, time line, then the checkpoint's note text. */
export function cosignedMessage(checkpointText: string, timestamp: number): Uint8Array {
  return utf8Encode(`cosignature/v1\ntime ${timestamp}\n${checkpointText}`);
}

function checkTimestamp(timestamp: number): CoreError | undefined {
  if (!Number.isSafeInteger(timestamp) || timestamp <= 0 || BigInt(timestamp) > MAX_TIMESTAMP)
    return malformed('cosignature timestamp must be a positive integer of seconds');
  return undefined;
}

/** Cosigns a checkpoint's note text; returns the signature line (with its final newline). */
export function cosignCheckpoint(
  checkpointText: string,
  cosigner: Cosigner,
  timestamp: number,
  backend: CryptoBackend = selectCryptoBackend(),
): Result<NoteSignature> {
  const bad = checkTimestamp(timestamp);
  if (bad) return err(bad);
  if (!checkpointText.endsWith('\n')) return err(malformed('checkpoint text must end with a newline'));
  const signature = backend.sign('ed25519', cosigner.secretKey, cosignedMessage(checkpointText, timestamp));
  const stamp = new Uint8Array(8);
  new DataView(stamp.buffer).setBigUint64(0, BigInt(timestamp), false);
  return ok({ keyName: cosigner.name, keyId: cosigner.keyId, signature: concatBytes(stamp, signature) });
}

/** `— name base64(keyID ‖ timestamp ‖ sig)\n`: the line a witness answers and a log appends. */
export function formatSignatureLine(signature: NoteSignature): string {
  // formatSignedNote writes `text\n<lines>`; the text is a placeholder stripped again here.
  return formatSignedNote({ text: '', signatures: [signature] }).slice(1);
}

/**
 * Verifies the cosignature lines of a signed checkpoint against the given witness keys. Lines from
 * unknown keys are ignored (they may be the log's own signatures); a line from a known key that does
 * not verify rejects the note, as signed-note requires; so do two lines from one key.
 */
export function verifyCosignatures(
  note: unknown,
  keys: readonly CosignerKey[],
  backend: CryptoBackend = selectCryptoBackend(),
): Result<VerifiedCosignature[]> {
  const parsed = parseSignedNote(note);
  if (!parsed.ok) return parsed;
  const verified: VerifiedCosignature[] = [];
  for (const line of parsed.value.signatures) {
    const key = keys.find((k) => k.name === line.keyName && k.keyId === line.keyId);
    if (key === undefined) continue;
    if (verified.some((v) => v.key === key))
      return err(malformed(`checkpoint carries two cosignatures from witness ${key.name}`));
    const bad = coreError('CLASSICAL_SIG_INVALID', `cosignature of witness ${key.name} does not verify`);
    if (line.signature.byteLength !== TIMESTAMPED_SIGNATURE) return err(bad);
    const view = new DataView(line.signature.buffer, line.signature.byteOffset, 8);
    const stamp = view.getBigUint64(0, false);
    if (stamp === 0n || stamp > BigInt(Number.MAX_SAFE_INTEGER)) return err(bad);
    const timestamp = Number(stamp);
    const message = cosignedMessage(parsed.value.text, timestamp);
    if (!backend.verify('ed25519', key.publicKey, message, line.signature.slice(8))) return err(bad);
    verified.push({ key, timestamp });
  }
  return ok(verified);
}

export interface WitnessPolicy {
  readonly witnesses: readonly CosignerKey[];
  /** How many distinct configured witnesses must have cosigned (k of n). */
  readonly quorum: number;
}

/** Checks a k-of-n witness quorum on a signed checkpoint; below quorum is SIGNATURE_MISSING. */
export function checkWitnessQuorum(
  note: unknown,
  policy: WitnessPolicy,
  backend?: CryptoBackend,
): Result<VerifiedCosignature[]> {
  if (!Number.isSafeInteger(policy.quorum) || policy.quorum < 0 || policy.quorum > policy.witnesses.length)
    return err(malformed('witness quorum must be between 0 and the number of witness keys'));
  const verified = verifyCosignatures(note, policy.witnesses, backend);
  if (!verified.ok) return verified;
  if (verified.value.length < policy.quorum) {
    return err(
      coreError(
        'SIGNATURE_MISSING',
        `checkpoint carries ${verified.value.length} of the ${policy.quorum} required witness cosignatures`,
      ),
    );
  }
  return verified;
}
