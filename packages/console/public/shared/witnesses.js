// The witness quorum of a log checkpoint, checked in the browser (c2sp.org/tlog-cosignature, cosignature/v1
// Ed25519 through WebCrypto): k distinct configured witnesses whose line verifies over this exact checkpoint
// text. Same counting as the verification service (docs/project-decisions.md P59, P61): unknown keys ignored,
// a witness twice counts once, a line over another checkpoint counts 0.
import { concat, equalBytes, fromBase64, sha256, utf8, verifyEd25519 } from './bytes.js';
import { parseSignedNote } from './note.js';

const COSIGNATURE_V1 = 0x04;

/** `name+hexid+base64(0x04 ‖ key)`: a witness key; undefined when malformed or its id does not match. */
export async function parseWitnessKey(vkey) {
  const match = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/.exec(String(vkey));
  if (!match) return undefined;
  const [, name, idHex, keyB64] = match;
  const raw = fromBase64(keyB64);
  if (raw?.length !== 33 || raw[0] !== COSIGNATURE_V1) return undefined;
  const keyId = (await sha256(concat(utf8(`${name}\n`), raw))).slice(0, 4);
  const hex = Array.from(keyId, (b) => b.toString(16).padStart(2, '0')).join('');
  return hex === idHex ? { name, keyId, publicKey: raw.slice(1) } : undefined;
}

async function lineVerifies(key, signature, text) {
  if (signature.length !== 8 + 64) return false;
  const stamp = new DataView(signature.buffer, signature.byteOffset, 8).getBigUint64(0, false);
  if (stamp === 0n || stamp > BigInt(Number.MAX_SAFE_INTEGER)) return false;
  const message = utf8(`cosignature/v1\ntime ${stamp}\n${text}`);
  return verifyEd25519(key.publicKey, signature.slice(8), message);
}

/** {met, quorum, cosigned: [names], refused: [names]} for `note` against the witness vkeys and k. */
export async function checkWitnessQuorum(note, vkeys, quorum) {
  const keys = (await Promise.all(vkeys.map(parseWitnessKey))).filter((k) => k !== undefined);
  const parsed = parseSignedNote(note);
  const cosigned = new Set();
  const refused = new Set();
  for (const sig of parsed?.signatures ?? []) {
    const key = keys.find((k) => k.name === sig.name && equalBytes(k.keyId, sig.keyId));
    if (!key || cosigned.has(key.name)) continue;
    if (await lineVerifies(key, sig.signature, parsed.text)) {
      cosigned.add(key.name);
      refused.delete(key.name);
    } else refused.add(key.name);
  }
  // A key the page cannot read must not lower k: the quorum stays what the operator configured.
  return { met: cosigned.size >= quorum, quorum, cosigned: [...cosigned], refused: [...refused] };
}

/** `cosigned by a, b (witness quorum 2)` and, when some did not count, which. */
export function describeWitnesses(result) {
  const names = result.cosigned.length > 0 ? `: ${result.cosigned.join(', ')}` : '';
  const refused = result.refused.length > 0 ? `; not counted: ${result.refused.join(', ')}` : '';
  return `cosigned by ${result.cosigned.length} of the ${result.quorum} required witnesses${names}${refused}`;
}
