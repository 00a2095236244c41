import { describe, expect, it } from 'vitest';
import { selectCryptoBackend } from '../crypto/index.ts';
import { signLogCheckpoint } from './checkpoint.ts';
import { type Cosigner, cosignCheckpoint, cosignerKey, formatSignatureLine } from './cosignature.ts';
import { tallyWitnessCosignatures } from './witness-quorum.ts';

const backend = selectCryptoBackend();
const logPair = backend.generateKeyPair('ed25519');

function makeCosigner(name: string): Cosigner {
  const pair = backend.generateKeyPair('ed25519');
  const key = cosignerKey(name, pair.publicKey);
  if (!key.ok) throw new Error(key.error.message);
  return { ...key.value, secretKey: pair.secretKey };
}

function checkpoint(fill: number): string {
  const note = signLogCheckpoint({ origin: 'log.example/q', size: 5, root: new Uint8Array(32).fill(fill) }, [
    { ...logPair, name: 'log.example/q', alg: 'ed25519' },
  ]);
  if (!note.ok) throw new Error(note.error.message);
  return note.value;
}

const textOf = (note: string) => note.slice(0, note.lastIndexOf('\n\n') + 1);

function line(note: string, cosigner: Cosigner, timestamp = 1_700_000_000): string {
  const signed = cosignCheckpoint(textOf(note), cosigner, timestamp);
  if (!signed.ok) throw new Error(signed.error.message);
  return formatSignatureLine(signed.value);
}

const [a, b, c, stranger] = ['w.example/a', 'w.example/b', 'w.example/c', 'w.example/x'].map(
  makeCosigner,
) as [Cosigner, Cosigner, Cosigner, Cosigner];
const witnesses = [a, b, c];

describe('tallyWitnessCosignatures (P59)', () => {
  const note = checkpoint(1);

  it('counts distinct configured witnesses and meets k', () => {
    const tally = tallyWitnessCosignatures(note + line(note, a) + line(note, b), witnesses, 2);
    expect(tally.ok && tally.value.met).toBe(true);
    expect(tally.ok && tally.value.cosigned.map((v) => v.key.name)).toEqual(['w.example/a', 'w.example/b']);
  });

  it('k-1 cosignatures do not meet k', () => {
    const tally = tallyWitnessCosignatures(note + line(note, a), witnesses, 2);
    expect(tally.ok && tally.value.met).toBe(false);
  });

  it('ignores an unconfigured witness and counts a repeated witness once', () => {
    const tally = tallyWitnessCosignatures(
      note + line(note, a) + line(note, a, 1_700_000_001) + line(note, stranger),
      witnesses,
      2,
    );
    expect(tally.ok && tally.value.cosigned.length).toBe(1);
    expect(tally.ok && tally.value.met).toBe(false);
  });

  it('a cosignature over another checkpoint counts 0 and is reported', () => {
    const other = checkpoint(2);
    const tally = tallyWitnessCosignatures(note + line(note, a) + line(other, b), witnesses, 2);
    expect(tally.ok && tally.value.met).toBe(false);
    expect(tally.ok && tally.value.refused.map((r) => r.key.name)).toEqual(['w.example/b']);
  });

  it('refuses a quorum outside 1..n', () => {
    expect(tallyWitnessCosignatures(note, witnesses, 0).ok).toBe(false);
    expect(tallyWitnessCosignatures(note, witnesses, 4).ok).toBe(false);
  });
});
