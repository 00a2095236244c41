// C2SP signed notes: text plus signature lines, key IDs, verifier-key strings, signing and verification.
// DECISIONS D18 (log checkpoints are signed notes with an Ed25519 line and an ML-DSA-65 line), c2sp.org/signed-note.
import { createHash } from 'node:crypto';
import { ALGORITHM_SIZES, type SigningAlg } from '../crypto/algorithms.ts';
import type { CryptoBackend } from '../crypto/backend.ts';
import { selectCryptoBackend } from '../crypto/select-backend.ts';
import { bytesEqual, concatBytes, decodeBase64Strict, encodeBase64, utf8Encode } from '../encoding/index.ts';
import { type CoreError, coreError, err, ok, type Result } from '../result.ts';

/** Signature type byte the signed-note spec assigns to Ed25519 over the note text. */
export const NOTE_TYPE_ED25519 = 0x01;

/**
 * Signed-note has no registered type for ML-DSA-65 (c2sp.org/signed-note registers 0x01 Ed25519,
 * 0x02 ECDSA, 0x04 cosignature/v1, 0x05 RFC 6962 STH; tlog-cosignature defines ML-DSA-44 only).
 * Our choice, documented in services/transparency-log/README.md: the reserved byte 0xFF followed by
 * this identifier, as the spec recommends for unassigned types. The signature is FIPS 204 ML-DSA-65,
 * pure mode, empty context, over the note text, exactly as the Ed25519 line signs it.
 */
export const NOTE_ML_DSA_65_IDENTIFIER = 'signed-bundles/ml-dsa-65@v1';

const ML_DSA_65_TYPE_BYTES = concatBytes(Uint8Array.of(0xff), utf8Encode(NOTE_ML_DSA_65_IDENTIFIER));
const ED25519_TYPE_BYTES = Uint8Array.of(NOTE_TYPE_ED25519);

/** The signature-type prefix hashed into the key ID and written before the key in a verifier key. */
export function noteSignatureType(alg: SigningAlg): Uint8Array {
  return (alg === 'ed25519' ? ED25519_TYPE_BYTES : ML_DSA_65_TYPE_BYTES).slice();
}

/** Spec floor is 16; two log lines plus room for witness cosignatures. */
export const MAX_NOTE_SIGNATURES = 64;
/** An ML-DSA-65 line is about 4.4 kB; 1 MiB bounds any note we accept. */
export const MAX_NOTE_LENGTH = 1 << 20;

const EM_DASH_PREFIX = '\u2014 ';

/** Control characters (below U+0020) are forbidden in a note, newline excepted where `allowNewline`. */
export function hasControlCharacter(text: string, allowNewline: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 && !(allowNewline && code === 0x0a)) return true;
  }
  return false;
}
// "Key names MUST be non-empty and MUST NOT contain any Unicode spaces or plus characters."
const BAD_KEY_NAME = /[\s+\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;

export interface NoteSignature {
  readonly keyName: string;
  /** uint32 key ID (big-endian first four bytes of the signature field). */
  readonly keyId: number;
  /** The signature bytes after the key ID. */
  readonly signature: Uint8Array;
}

export interface SignedNote {
  /** The signed text, final newline included. */
  readonly text: string;
  readonly signatures: readonly NoteSignature[];
}

export interface NoteVerifierKey {
  readonly name: string;
  readonly keyId: number;
  readonly alg: SigningAlg;
  readonly publicKey: Uint8Array;
}

export interface NoteSigner {
  readonly name: string;
  readonly alg: SigningAlg;
  /** SDK layout (crypto/backend.ts): Ed25519 seed ‖ public key, ML-DSA-65 expanded key. */
  readonly secretKey: Uint8Array;
  readonly publicKey: Uint8Array;
}

const malformed = (message: string): CoreError => coreError('BUNDLE_SCHEMA_INVALID', message);

export function isValidKeyName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name.length > 0 &&
    !BAD_KEY_NAME.test(name) &&
    !hasControlCharacter(name, false)
  );
}

/** key ID = SHA-256(key name ‖ 0x0A ‖ signature type ‖ public key)[:4], big-endian. */
export function noteKeyId(name: string, alg: SigningAlg, publicKey: Uint8Array): number {
  const hash = createHash('sha256')
    .update(utf8Encode(name))
    .update(Uint8Array.of(0x0a))
    .update(noteSignatureType(alg))
    .update(publicKey)
    .digest();
  return hash.readUInt32BE(0);
}

function keyIdHex(keyId: number): string {
  return keyId.toString(16).padStart(8, '0');
}

function keyIdBytes(keyId: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, keyId, false);
  return out;
}

/** Builds a verifier key from a raw public key; malformed names or key lengths are errors. */
export function noteVerifierKey(
  name: string,
  alg: SigningAlg,
  publicKey: Uint8Array,
): Result<NoteVerifierKey> {
  if (!isValidKeyName(name)) return err(malformed('key name must be non-empty, without spaces or "+"'));
  const sizes = ALGORITHM_SIZES[alg];
  if (sizes === undefined) return err(coreError('ALGORITHM_UNAVAILABLE', `unknown algorithm ${String(alg)}`));
  if (!(publicKey instanceof Uint8Array) || publicKey.byteLength !== sizes.publicKey) {
    return err(malformed(`${alg} public key must be ${sizes.publicKey} bytes`));
  }
  return ok({ name, keyId: noteKeyId(name, alg, publicKey), alg, publicKey: publicKey.slice() });
}

/** The verifier-key string: `<name>+<8 hex key ID>+<base64(signature type ‖ public key)>`. */
export function formatVerifierKey(key: NoteVerifierKey): string {
  return `${key.name}+${keyIdHex(key.keyId)}+${encodeBase64(concatBytes(noteSignatureType(key.alg), key.publicKey))}`;
}

/** Parses a verifier-key string and checks that its key ID is the one its name and key produce. */
export function parseVerifierKey(vkey: unknown): Result<NoteVerifierKey> {
  if (typeof vkey !== 'string') return err(malformed('verifier key must be a string'));
  // Names and IDs hold no '+', base64 may: split at the first two only.
  const match = /^([^+]*)\+([^+]*)\+(.*)$/s.exec(vkey.trim());
  if (match === null) return err(malformed('verifier key must be <name>+<key id>+<base64 key>'));
  const [, name = '', idHex = '', keyB64 = ''] = match;
  if (!isValidKeyName(name)) return err(malformed('verifier key has an invalid key name'));
  if (!/^[0-9a-f]{8}$/.test(idHex)) return err(malformed('verifier key ID must be 8 lowercase hex digits'));
  const encoded = decodeBase64Strict(keyB64);
  if (encoded === undefined || encoded.byteLength < 2)
    return err(malformed('verifier key is not valid base64'));
  let alg: SigningAlg;
  let publicKey: Uint8Array;
  if (encoded[0] === NOTE_TYPE_ED25519) {
    alg = 'ed25519';
    publicKey = encoded.subarray(1);
  } else if (
    encoded.byteLength > ML_DSA_65_TYPE_BYTES.byteLength &&
    bytesEqual(encoded.subarray(0, ML_DSA_65_TYPE_BYTES.byteLength), ML_DSA_65_TYPE_BYTES)
  ) {
    alg = 'ml-dsa-65';
    publicKey = encoded.subarray(ML_DSA_65_TYPE_BYTES.byteLength);
  } else {
    return err(coreError('ALGORITHM_UNAVAILABLE', 'verifier key has an unsupported signature type'));
  }
  const key = noteVerifierKey(name, alg, publicKey);
  if (!key.ok) return key;
  if (keyIdHex(key.value.keyId) !== idHex) {
    return err(malformed('verifier key ID does not match its name and public key'));
  }
  return key;
}

/** Splits a signed note into its text and signature lines (no signature is checked here). */
export function parseSignedNote(note: unknown): Result<SignedNote> {
  if (typeof note !== 'string') return err(malformed('signed note must be a string'));
  if (note.length > MAX_NOTE_LENGTH) return err(malformed('signed note is too large'));
  // Text decoded from bytes carries U+FFFD where the bytes were not UTF-8; such a note is refused.
  if (note.includes('\uFFFD')) return err(malformed('signed note is not valid UTF-8'));
  if (hasControlCharacter(note, true)) return err(malformed('signed note contains control characters'));
  if (!note.endsWith('\n')) return err(malformed('signed note must end with a newline'));
  const split = note.lastIndexOf('\n\n');
  if (split < 0) return err(malformed('signed note has no blank line before its signatures'));
  const text = note.slice(0, split + 1);
  if (text.length === 0) return err(malformed('signed note text is empty'));
  const lines = note.slice(split + 2, -1).split('\n');
  if (lines.length === 0 || (lines.length === 1 && lines[0] === '')) {
    return err(malformed('signed note has no signature lines'));
  }
  if (lines.length > MAX_NOTE_SIGNATURES) return err(malformed('signed note has too many signatures'));
  const signatures: NoteSignature[] = [];
  for (const line of lines) {
    if (!line.startsWith(EM_DASH_PREFIX))
      return err(malformed('signature line must start with an em dash and a space'));
    const rest = line.slice(EM_DASH_PREFIX.length);
    const space = rest.lastIndexOf(' ');
    const keyName = rest.slice(0, space);
    if (space <= 0 || !isValidKeyName(keyName))
      return err(malformed('signature line has an invalid key name'));
    const bytes = decodeBase64Strict(rest.slice(space + 1));
    if (bytes === undefined || bytes.byteLength < 5)
      return err(malformed('signature line has an invalid signature'));
    const keyId = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, false);
    signatures.push({ keyName, keyId, signature: bytes.slice(4) });
  }
  return ok({ text, signatures });
}

/** Text of a signed note: the text, a blank line, one `— name base64(keyID ‖ sig)` line per signature. */
export function formatSignedNote(note: SignedNote): string {
  const lines = note.signatures.map(
    (s) => `${EM_DASH_PREFIX}${s.keyName} ${encodeBase64(concatBytes(keyIdBytes(s.keyId), s.signature))}\n`,
  );
  return `${note.text}\n${lines.join('')}`;
}

function checkNoteText(text: unknown): CoreError | undefined {
  if (typeof text !== 'string' || text.length === 0 || !text.endsWith('\n')) {
    return malformed('note text must be non-empty and end with a newline');
  }
  if (hasControlCharacter(text, true)) return malformed('note text contains control characters');
  return undefined;
}

/**
 * Signs `text` with every signer, in order. Errors (never throws): malformed text or names, a
 * secret key the backend refuses, or an algorithm the backend lacks.
 */
export function signNote(
  text: string,
  signers: readonly NoteSigner[],
  backend: CryptoBackend = selectCryptoBackend(),
): Result<string> {
  const bad = checkNoteText(text);
  if (bad) return err(bad);
  if (signers.length === 0) return err(malformed('at least one signer is required'));
  const message = utf8Encode(text);
  const signatures: NoteSignature[] = [];
  for (const signer of signers) {
    const key = noteVerifierKey(signer.name, signer.alg, signer.publicKey);
    if (!key.ok) return key;
    let signature: Uint8Array;
    try {
      signature = backend.sign(signer.alg, signer.secretKey, message);
    } catch (error) {
      return err(
        coreError('ALGORITHM_UNAVAILABLE', `cannot sign with ${signer.alg}: ${(error as Error).message}`),
      );
    }
    signatures.push({ keyName: signer.name, keyId: key.value.keyId, signature });
  }
  return ok(formatSignedNote({ text, signatures }));
}

export interface VerifyNoteOptions {
  /**
   * `all` (default): every given key must have a valid signature line (hybrid: classical and PQ).
   * `any`: one valid signature from a given key is enough (signed-note's minimum).
   */
  readonly require?: 'all' | 'any';
  readonly backend?: CryptoBackend;
}

export interface VerifiedNote {
  readonly text: string;
  /** The given keys whose signature verified, in the order of the note's lines. */
  readonly verifiedBy: readonly NoteVerifierKey[];
}

/**
 * Verifies a signed note against trusted keys, per c2sp.org/signed-note: lines from unknown keys
 * (name and ID not both matching) are ignored; a line from a known key that fails rejects the whole
 * note; two lines from one known key reject it; no verified known key rejects it.
 */
export function verifySignedNote(
  note: unknown,
  keys: readonly NoteVerifierKey[],
  options: VerifyNoteOptions = {},
): Result<VerifiedNote> {
  const parsed = parseSignedNote(note);
  if (!parsed.ok) return parsed;
  if (keys.length === 0) return err(malformed('at least one verifier key is required'));
  const backend = options.backend ?? selectCryptoBackend();
  const message = utf8Encode(parsed.value.text);
  const verified: NoteVerifierKey[] = [];
  for (const line of parsed.value.signatures) {
    const key = keys.find((k) => k.name === line.keyName && k.keyId === line.keyId);
    if (key === undefined) continue;
    if (verified.includes(key)) {
      return err(malformed(`note carries two signatures from key ${key.name}+${keyIdHex(key.keyId)}`));
    }
    const expected = ALGORITHM_SIZES[key.alg].signature;
    const good =
      line.signature.byteLength === expected &&
      backend.verify(key.alg, key.publicKey, message, line.signature);
    if (!good) {
      const code = key.alg === 'ed25519' ? 'CLASSICAL_SIG_INVALID' : 'PQ_SIG_INVALID';
      return err(
        coreError(code, `${key.alg} signature of ${key.name}+${keyIdHex(key.keyId)} does not verify`),
      );
    }
    verified.push(key);
  }
  if (verified.length === 0)
    return err(coreError('SIGNATURE_MISSING', 'note carries no signature from a trusted key'));
  if ((options.require ?? 'all') === 'all') {
    const missing = keys.filter((k) => !verified.includes(k));
    if (missing.length > 0) {
      const names = missing.map((k) => `${k.alg} ${k.name}+${keyIdHex(k.keyId)}`).join(', ');
      return err(coreError('SIGNATURE_MISSING', `note is not signed by ${names}`));
    }
  }
  return ok({ text: parsed.value.text, verifiedBy: verified });
}

/** Lowercase hex spelling of a key ID, as verifier keys write it. */
export function formatKeyId(keyId: number): string {
  return keyIdHex(keyId);
}
