// The console's witnesses.js (run in Node, same WebCrypto) against core's cosignature/v1: the page counts a
// witness quorum as the verification service does (P59, P61).
import {
  type Cosigner,
  cosignCheckpoint,
  cosignerKey,
  formatCosignerKey,
  formatSignatureLine,
  selectCryptoBackend,
  signNote,
} from '@proto/core';
import { describe, expect, it } from 'vitest';

type Quorum = { met: boolean; quorum: number; cosigned: string[]; refused: string[] };
const witnesses = (await import(new URL('../public/shared/witnesses.js', import.meta.url).href)) as {
  checkWitnessQuorum(note: string, vkeys: string[], quorum: number): Promise<Quorum>;
  parseWitnessKey(vkey: string): Promise<unknown>;
};

const backend = selectCryptoBackend();
function witness(name: string): Cosigner & { vkey: string } {
  const pair = backend.generateKeyPair('ed25519');
  const key = cosignerKey(name, pair.publicKey);
  if (!key.ok) throw new Error(key.error.message);
  return { ...key.value, secretKey: pair.secretKey, vkey: formatCosignerKey(key.value) };
}
const logPair = backend.generateKeyPair('ed25519');
function note(size: number): { note: string; text: string } {
  const text = `log.example/w\n${size}\n${Buffer.alloc(32, size).toString('base64')}\n`;
  const signed = signNote(text, [{ ...logPair, name: 'log.example/w', alg: 'ed25519' }]);
  if (!signed.ok) throw new Error(signed.error.message);
  return { note: signed.value, text };
}
const line = (text: string, w: Cosigner, time = 1_790_000_000) => {
  const signed = cosignCheckpoint(text, w, time);
  if (!signed.ok) throw new Error(signed.error.message);
  return formatSignatureLine(signed.value);
};

const [a, b, x] = ['w.example/a', 'w.example/b', 'w.example/x'].map(witness) as [
  ReturnType<typeof witness>,
  ReturnType<typeof witness>,
  ReturnType<typeof witness>,
];

describe('witnesses.js (cosignature/v1 in the browser)', () => {
  const { note: signed, text } = note(3);
  const other = note(4).text.replace('\n4\n', '\n3\n');

  it('meets k with distinct configured witnesses over this checkpoint', async () => {
    const result = await witnesses.checkWitnessQuorum(
      signed + line(text, a) + line(text, b),
      [a.vkey, b.vkey],
      2,
    );
    expect(result).toEqual({ met: true, quorum: 2, cosigned: ['w.example/a', 'w.example/b'], refused: [] });
  });

  it.each([
    ['k-1', () => line(text, a)],
    ['an unconfigured witness', () => line(text, a) + line(text, x)],
    ['one witness twice', () => line(text, a) + line(text, a, 1_790_000_001)],
    ['a cosignature over another checkpoint (split view)', () => line(text, a) + line(other, b)],
  ])('does not meet k with %s', async (_what, lines) => {
    const result = await witnesses.checkWitnessQuorum(signed + lines(), [a.vkey, b.vkey], 2);
    expect(result.met).toBe(false);
    expect(result.cosigned).toEqual(['w.example/a']);
  });

  it('reads only type 0x04 witness keys with a matching key id', async () => {
    expect(await witnesses.parseWitnessKey(a.vkey)).toBeDefined();
    expect(await witnesses.parseWitnessKey(a.vkey.replace(/\+[0-9a-f]{8}\+/, '+00000000+'))).toBeUndefined();
  });
});
