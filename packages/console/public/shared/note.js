// C2SP signed-note and checkpoint parsing, and Ed25519 note-signature checks through WebCrypto.
// Issue 17 item 2; D18 (checkpoints as C2SP signed notes, verifier keys `name+hash+base64`).
import { concat, equalBytes, fromBase64, sha256, utf8, verifyEd25519 } from './bytes.js';

/** Splits a note into the signed text (ending in its last newline) and its signature lines. */
export function parseSignedNote(note) {
  const split = note.indexOf('\n\n');
  if (split < 0) return undefined;
  const text = note.slice(0, split + 1);
  const signatures = [];
  for (const line of note.slice(split + 2).split('\n')) {
    if (line === '') continue;
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/.exec(line);
    if (!match) return undefined;
    const bytes = fromBase64(match[2]);
    if (bytes === undefined || bytes.length < 5) return undefined;
    signatures.push({ name: match[1], keyId: bytes.slice(0, 4), signature: bytes.slice(4) });
  }
  return { text, signatures };
}

/** Checkpoint body lines: origin, tree size, base64 root hash (C2SP tlog-checkpoint). */
export function parseCheckpoint(text) {
  const lines = text.split('\n');
  const [origin, sizeText, rootText] = lines;
  const root = fromBase64(rootText ?? '');
  if (!origin || !/^(0|[1-9][0-9]*)$/.test(sizeText ?? '') || root?.length !== 32) return undefined;
  return { origin, size: Number(sizeText), root };
}

/** `name+hexid+base64(0x01 ‖ key)`: an Ed25519 verifier key; other key types are reported, not used. */
export async function parseVerifierKey(vkey) {
  // The name holds no '+', the id is 8 hex digits; the base64 key itself may contain '+'.
  const match = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/.exec(String(vkey));
  if (!match) return undefined;
  const [, name, idHex, keyB64] = match;
  const raw = fromBase64(keyB64);
  if (raw === undefined || raw.length < 2) return undefined;
  // D18: the log also signs with ML-DSA-65 (type 0xff + identifier); WebCrypto has no ML-DSA, so it is shown, not checked.
  const alg =
    raw[0] === 0x01 && raw.length === 33
      ? 'ed25519'
      : raw[0] === 0xff
        ? 'ML-DSA-65'
        : `key type 0x${raw[0].toString(16)}`;
  const hash = await sha256(concat(utf8(`${name}\n`), raw));
  const keyId = hash.slice(0, 4);
  const idMatches = Array.from(keyId, (b) => b.toString(16).padStart(2, '0')).join('') === idHex;
  return { name, alg, keyId, idMatches, publicKey: raw.slice(1) };
}

/** Every signature line checked against the keys; a note is trusted when one Ed25519 key verifies. */
export async function verifyNote(note, vkeys) {
  const parsed = parseSignedNote(note);
  if (!parsed) return { ok: false, reason: 'not a signed note', results: [] };
  const keys = (await Promise.all(vkeys.map(parseVerifierKey))).filter((k) => k !== undefined);
  const message = utf8(parsed.text);
  const results = [];
  for (const sig of parsed.signatures) {
    const key = keys.find((k) => k.name === sig.name && equalBytes(k.keyId, sig.keyId));
    if (!key) {
      results.push({ name: sig.name, status: 'unknown key', alg: 'unknown' });
    } else if (key.alg !== 'ed25519') {
      results.push({ name: sig.name, status: 'not checked', alg: key.alg });
    } else {
      const valid = key.idMatches && (await verifyEd25519(key.publicKey, sig.signature, message));
      results.push({ name: sig.name, status: valid ? 'valid' : 'INVALID', alg: 'Ed25519' });
    }
  }
  const ok = results.some((r) => r.status === 'valid') && !results.some((r) => r.status === 'INVALID');
  return { ok, reason: ok ? 'Ed25519 signature verified' : 'no valid signature', results, text: parsed.text };
}
