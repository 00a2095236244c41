// Signed notes and verifier keys: the Go sumdb/note reference vector, our ML-DSA-65 line, the rejection rules.
// DECISIONS D18; c2sp.org/signed-note (key IDs, unknown keys ignored, a failing known key rejects the note).
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { selectCryptoBackend } from '../crypto/index.ts';
import { concatBytes, decodeBase64Strict } from '../encoding/index.ts';
import {
  formatSignedNote,
  formatVerifierKey,
  NOTE_ML_DSA_65_IDENTIFIER,
  type NoteSigner,
  noteKeyId,
  noteVerifierKey,
  parseSignedNote,
  parseVerifierKey,
  signNote,
  verifySignedNote,
} from './index.ts';

const backend = selectCryptoBackend();

// The reference vector of golang.org/x/mod/sumdb/note (its package documentation): public test data.
const GO_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const GO_SKEY_B64 = 'AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz'; // 0x01 ‖ Ed25519 seed
const GO_TEXT =
  'If you think cryptography is the answer to your problem,\n' +
  "then you don't know what your problem is.\n";
const GO_NOTE = `${GO_TEXT}\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

function ed25519FromSeed(seed: Uint8Array): Uint8Array {
  const der = concatBytes(Uint8Array.from(Buffer.from('302e020100300506032b657004220420', 'hex')), seed);
  const key = createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
  const jwk = createPublicKey(key).export({ format: 'jwk' });
  return concatBytes(seed, new Uint8Array(Buffer.from(jwk.x as string, 'base64url')));
}

function signer(name: string, alg: 'ed25519' | 'ml-dsa-65'): NoteSigner {
  const pair = backend.generateKeyPair(alg);
  return { name, alg, secretKey: pair.secretKey, publicKey: pair.publicKey };
}

function verifierOf(s: NoteSigner) {
  const key = noteVerifierKey(s.name, s.alg, s.publicKey);
  if (!key.ok) throw new Error(key.error.message);
  return key.value;
}

describe('verifier keys', () => {
  it('reads the Go reference key and derives the same key ID', () => {
    const key = parseVerifierKey(GO_VKEY);
    expect(key.ok).toBe(true);
    if (!key.ok) return;
    expect(key.value.name).toBe('PeterNeumann');
    expect(key.value.alg).toBe('ed25519');
    expect(key.value.keyId).toBe(0xc74f20a3);
    expect(formatVerifierKey(key.value)).toBe(GO_VKEY);
  });

  it('reads keys whose base64 contains "+" and other published Ed25519 keys', () => {
    for (const vkey of [
      'TEST+7997405c+AQcC+FTVKf0jlTdHDY3rbevmnKxxPjigCXlVtGe6RIr6',
      'EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop',
    ]) {
      const key = parseVerifierKey(vkey);
      expect(key.ok, vkey).toBe(true);
      if (key.ok) expect(formatVerifierKey(key.value)).toBe(vkey);
    }
  });

  it('refuses every single-character change of a key, and non-strings', () => {
    const alphabet = 'AZaz09+/=x ';
    let refused = 0;
    for (let i = 0; i < GO_VKEY.length; i++) {
      for (const c of alphabet) {
        if (GO_VKEY[i] === c) continue;
        const mangled = GO_VKEY.slice(0, i) + c + GO_VKEY.slice(i + 1);
        const parsed = parseVerifierKey(mangled);
        // A changed name, ID or key byte must break the ID check; only identical keys may pass.
        if (parsed.ok) expect(formatVerifierKey(parsed.value)).toBe(mangled);
        else refused++;
      }
    }
    expect(refused).toBeGreaterThan(GO_VKEY.length * 5);
    for (const junk of [undefined, null, 42, {}, '', '+', 'a+b', 'a+0000000g+AQ==']) {
      expect(parseVerifierKey(junk).ok).toBe(false);
    }
  });

  it('gives ML-DSA-65 keys the 0xFF type with our identifier, distinct from the Ed25519 ID under one name', () => {
    const pq = signer('example.org/log', 'ml-dsa-65');
    const key = verifierOf(pq);
    const vkey = formatVerifierKey(key);
    const encoded = decodeBase64Strict(vkey.split('+').slice(2).join('+')) as Uint8Array;
    expect(encoded[0]).toBe(0xff);
    expect(Buffer.from(encoded.subarray(1, 1 + NOTE_ML_DSA_65_IDENTIFIER.length)).toString()).toBe(
      NOTE_ML_DSA_65_IDENTIFIER,
    );
    expect(encoded.byteLength).toBe(1 + NOTE_ML_DSA_65_IDENTIFIER.length + 1952);
    const back = parseVerifierKey(vkey);
    expect(back.ok && back.value.alg === 'ml-dsa-65' && back.value.keyId === key.keyId).toBe(true);
    expect(noteKeyId('example.org/log', 'ed25519', pq.publicKey.subarray(0, 32))).not.toBe(key.keyId);
  });

  it('refuses bad names and key lengths', () => {
    const pk = new Uint8Array(32);
    expect(noteVerifierKey('', 'ed25519', pk).ok).toBe(false);
    expect(noteVerifierKey('a b', 'ed25519', pk).ok).toBe(false);
    expect(noteVerifierKey('a+b', 'ed25519', pk).ok).toBe(false);
    expect(noteVerifierKey('a\u00a0b', 'ed25519', pk).ok).toBe(false);
    expect(noteVerifierKey('ok', 'ed25519', new Uint8Array(31)).ok).toBe(false);
    expect(noteVerifierKey('ok', 'ml-dsa-65', pk).ok).toBe(false);
  });
});

describe('signed notes', () => {
  it('verifies the Go reference note and reproduces it byte for byte', () => {
    const key = parseVerifierKey(GO_VKEY);
    if (!key.ok) throw new Error('bad key');
    const opened = verifySignedNote(GO_NOTE, [key.value]);
    expect(opened.ok && opened.value.text).toBe(GO_TEXT);
    const seed = (decodeBase64Strict(GO_SKEY_B64) as Uint8Array).subarray(1);
    const secretKey = ed25519FromSeed(seed);
    const signed = signNote(
      GO_TEXT,
      [{ name: 'PeterNeumann', alg: 'ed25519', secretKey, publicKey: secretKey.subarray(32) }],
      backend,
    );
    expect(signed.ok && signed.value).toBe(GO_NOTE);
  });

  it('signs with Ed25519 and ML-DSA-65 and verifies both lines by default', () => {
    const ed = signer('log.example/a', 'ed25519');
    const pq = signer('log.example/a', 'ml-dsa-65');
    const note = signNote('hello\nworld\n', [ed, pq], backend);
    if (!note.ok) throw new Error(note.error.message);
    const parsed = parseSignedNote(note.value);
    expect(parsed.ok && parsed.value.signatures.map((s) => s.signature.byteLength)).toEqual([64, 3309]);
    const both = verifySignedNote(note.value, [verifierOf(ed), verifierOf(pq)], { backend });
    expect(both.ok && both.value.verifiedBy.map((k) => k.alg)).toEqual(['ed25519', 'ml-dsa-65']);
    expect(verifySignedNote(note.value, [verifierOf(pq)], { backend }).ok).toBe(true);
  });

  it('ignores unknown keys, rejects a failing known key, a missing required key, duplicates', () => {
    const ed = signer('log.example/a', 'ed25519');
    const pq = signer('log.example/a', 'ml-dsa-65');
    const stranger = signer('witness.example', 'ed25519');
    const note = signNote('body\n', [stranger, ed], backend);
    if (!note.ok) throw new Error('sign');
    expect(verifySignedNote(note.value, [verifierOf(ed)], { backend }).ok).toBe(true);

    // A signature from the key we trust, made over other text: the note is rejected (E100).
    const other = signNote('other\n', [ed], backend);
    if (!other.ok) throw new Error('sign');
    const otherParsed = parseSignedNote(other.value);
    if (!otherParsed.ok) throw new Error('parse');
    const forged = formatSignedNote({ text: 'body\n', signatures: otherParsed.value.signatures });
    const bad = verifySignedNote(forged, [verifierOf(ed)], { backend });
    expect(!bad.ok && bad.error.code).toBe('CLASSICAL_SIG_INVALID');

    // Both keys required (default), only one line present: E103; with `any`, accepted.
    const missing = verifySignedNote(note.value, [verifierOf(ed), verifierOf(pq)], { backend });
    expect(!missing.ok && missing.error.code).toBe('SIGNATURE_MISSING');
    expect(
      verifySignedNote(note.value, [verifierOf(ed), verifierOf(pq)], { backend, require: 'any' }).ok,
    ).toBe(true);

    // Only strangers signed: E103.
    const none = verifySignedNote(note.value, [verifierOf(pq)], { backend });
    expect(!none.ok && none.error.code).toBe('SIGNATURE_MISSING');

    const doubled = `${note.value}${note.value.split('\n').at(-2)}\n`;
    const dup = verifySignedNote(doubled, [verifierOf(ed)], { backend });
    expect(!dup.ok && dup.error.code).toBe('BUNDLE_SCHEMA_INVALID');
  });

  it('rejects a tampered ML-DSA-65 line with E101', () => {
    const pq = signer('log.example/a', 'ml-dsa-65');
    const note = signNote('body\n', [pq], backend);
    if (!note.ok) throw new Error('sign');
    const parsed = parseSignedNote(note.value);
    if (!parsed.ok) throw new Error('parse');
    const sig = parsed.value.signatures[0]!;
    const flipped = sig.signature.slice();
    flipped[100] = (flipped[100] as number) ^ 1;
    const tampered = formatSignedNote({ text: 'body\n', signatures: [{ ...sig, signature: flipped }] });
    const result = verifySignedNote(tampered, [verifierOf(pq)], { backend });
    expect(!result.ok && result.error.code).toBe('PQ_SIG_INVALID');
  });

  it('refuses malformed notes without throwing', () => {
    const cases: unknown[] = [
      undefined,
      42,
      '',
      'no newline',
      'text\n',
      'text\n\n',
      'text\n\nnot a signature line\n',
      'text\n\n— name\n',
      'text\n\n— name AAAA\n',
      'text\n\n— na me AAAAAAAA\n',
      'text\n\n— name !!!!\n',
      'te\u0001xt\n\n— name AAAAAAAA\n',
      'text\n\n— name AAAAAAAA',
      'te\uFFFDxt\n\n— name AAAAAAAA\n',
    ];
    for (const input of cases) expect(parseSignedNote(input).ok, JSON.stringify(input)).toBe(false);
    expect(parseSignedNote('text\n\n— name AAAAAAAB\n').ok).toBe(true);
    expect(signNote('no newline', [signer('a', 'ed25519')], backend).ok).toBe(false);
    expect(signNote('text\n', [], backend).ok).toBe(false);
    expect(verifySignedNote('text\n\n— name AAAAAAAB\n', []).ok).toBe(false);
  });
});

describe('never throws', () => {
  it('answers junk verifier keys and notes with a Result', async () => {
    const fc = await import('fast-check');
    const key = verifierOf(signer('a', 'ed25519'));
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string()), (input) => {
        expect(typeof parseVerifierKey(input).ok).toBe('boolean');
        expect(typeof parseSignedNote(input).ok).toBe('boolean');
        expect(typeof verifySignedNote(input, [key]).ok).toBe('boolean');
        expect(typeof signNote(input as string, [], backend).ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });
});
