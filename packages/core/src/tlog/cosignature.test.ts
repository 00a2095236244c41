import { createHash, createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { selectCryptoBackend } from '../crypto/index.ts';
import { decodeBase64Strict } from '../encoding/index.ts';
import { signLogCheckpoint } from './checkpoint.ts';
import {
  type Cosigner,
  checkWitnessQuorum,
  cosignCheckpoint,
  cosignerKey,
  formatCosignerKey,
  formatSignatureLine,
  parseCosignerKey,
  verifyCosignatures,
} from './cosignature.ts';
import { type NoteSigner, parseSignedNote } from './note.ts';

const backend = selectCryptoBackend();

function makeCosigner(name: string): Cosigner {
  const pair = backend.generateKeyPair('ed25519');
  const key = cosignerKey(name, pair.publicKey);
  if (!key.ok) throw new Error(key.error.message);
  return { ...key.value, secretKey: pair.secretKey };
}

function logSigner(): NoteSigner {
  const pair = backend.generateKeyPair('ed25519');
  return { ...pair, name: 'log.example/test', alg: 'ed25519' };
}

function signedCheckpoint(size = 5): string {
  const note = signLogCheckpoint(
    { origin: 'log.example/test', size, root: new Uint8Array(32).fill(7), extensions: [] },
    [logSigner()],
  );
  if (!note.ok) throw new Error(note.error.message);
  return note.value;
}

function cosign(note: string, cosigner: Cosigner, timestamp = 1_700_000_000): string {
  const text = note.slice(0, note.lastIndexOf('\n\n') + 1);
  const line = cosignCheckpoint(text, cosigner, timestamp);
  if (!line.ok) throw new Error(line.error.message);
  return note + formatSignatureLine(line.value);
}

describe('cosignature/v1 (c2sp.org/tlog-cosignature)', () => {
  it('decodes the spec example: key ID then a big-endian timestamp equal to its "time" line', () => {
    // From tlog-cosignature.md: the witness.example.com/w1 line cosigns "time 1679315147".
    const bytes = decodeBase64Strict(
      'jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==',
    );
    expect(bytes?.byteLength).toBe(4 + 8 + 64);
    const view = new DataView(bytes!.buffer, bytes!.byteOffset);
    expect(view.getBigUint64(4, false)).toBe(1679315147n);
  });

  it('signs the header, time line and note text, checked with node:crypto independently', () => {
    const cosigner = makeCosigner('witness.example/w1');
    const note = cosign(signedCheckpoint(), cosigner, 1679315147);
    const parsed = parseSignedNote(note);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const line = parsed.value.signatures.find((s) => s.keyName === 'witness.example/w1')!;
    const message = Buffer.from(`cosignature/v1\ntime 1679315147\n${parsed.value.text}`);
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), cosigner.publicKey]);
    const publicKey = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    expect(verify(null, message, publicKey, line.signature.slice(8))).toBe(true);
    expect(Buffer.from(line.signature.slice(0, 8)).readBigUInt64BE(0)).toBe(1679315147n);
  });

  it('computes key IDs with type byte 0x04, independently of the note key ID (0x01)', () => {
    const cosigner = makeCosigner('witness.example/w1');
    const input = Buffer.concat([Buffer.from('witness.example/w1\n'), Buffer.of(0x04), cosigner.publicKey]);
    const expected = createHash('sha256').update(input).digest().readUInt32BE(0);
    expect(cosigner.keyId).toBe(expected);
  });

  it('round-trips the vkey form and refuses a wrong key ID or type byte', () => {
    const cosigner = makeCosigner('witness.example/w1');
    const vkey = formatCosignerKey(cosigner);
    const parsed = parseCosignerKey(vkey);
    expect(parsed.ok && parsed.value.keyId).toBe(cosigner.keyId);
    const wrongId = vkey.replace(/\+[0-9a-f]{8}\+/, '+00000000+');
    expect(parseCosignerKey(wrongId).ok).toBe(false);
    const material = Buffer.concat([Buffer.of(0x01), cosigner.publicKey]).toString('base64');
    expect(parseCosignerKey(`witness.example/w1+${vkey.split('+')[1]}+${material}`).ok).toBe(false);
  });

  it('verifies cosignatures, ignores unknown ones, refuses a forged or altered one', () => {
    const a = makeCosigner('witness.example/a');
    const b = makeCosigner('witness.example/b');
    const note = cosign(cosign(signedCheckpoint(), a), b);
    const both = verifyCosignatures(note, [a, b]);
    expect(both.ok && both.value.map((v) => v.key.name)).toEqual(['witness.example/a', 'witness.example/b']);
    expect(verifyCosignatures(note, [a]).ok).toBe(true);
    // The same cosignature moved onto a different checkpoint does not verify.
    const line = note.slice(note.indexOf('— witness.example/a'));
    const other = signedCheckpoint(6);
    expect(verifyCosignatures(other + line, [a, b]).ok).toBe(false);
  });

  it('a quorum of k distinct configured witnesses is required', () => {
    const a = makeCosigner('witness.example/a');
    const b = makeCosigner('witness.example/b');
    const c = makeCosigner('witness.example/c');
    const policy = { witnesses: [a, b, c], quorum: 2 };
    const one = cosign(signedCheckpoint(), a);
    const refused = checkWitnessQuorum(one, policy);
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error.code).toBe('SIGNATURE_MISSING');
    expect(checkWitnessQuorum(cosign(one, c), policy).ok).toBe(true);
    // A stranger's valid cosignature counts for nothing.
    const stranger = makeCosigner('witness.example/a');
    expect(checkWitnessQuorum(cosign(one, stranger), policy).ok).toBe(false);
    // The same witness twice is not two witnesses.
    expect(checkWitnessQuorum(cosign(one, a, 1_700_000_001), policy).ok).toBe(false);
    expect(checkWitnessQuorum(one, { witnesses: [a], quorum: 2 }).ok).toBe(false);
  });
});
