// The console's browser modules run in Node too (same WebCrypto): checked here against the stack's own
// implementations of RFC 9162, C2SP signed notes, RFC 8785 and the CBOR wire format. Issue 17; D2, D18.
import { generateKeyPairSync } from 'node:crypto';
import {
  buildSignedBundle,
  canonicalizeV2,
  encodeBase64,
  formatVerifierKey,
  noteVerifierKey,
  signNote,
} from '@proto/core';
import { encodeCbor, decodeCbor as serviceDecodeCbor } from '@proto/service-kit';
import { referenceLeafHashes, referencePath, referenceRoot } from '@proto/testing';
import { describe, expect, it } from 'vitest';

const naiveRoot = (inputs: readonly Uint8Array[], n: number) => referenceRoot(referenceLeafHashes(inputs), n);
const naiveInclusion = (m: number, inputs: readonly Uint8Array[], n: number) =>
  referencePath(m, referenceLeafHashes(inputs), n);

// Plain ES modules without type declarations: loaded as the browser loads them.
type Module = Record<string, (...args: never[]) => unknown>;
const load = async (name: string) =>
  (await import(new URL(`../public/shared/${name}.js`, import.meta.url).href)) as Module;
const merkle = (await load('merkle')) as unknown as {
  leafHash(input: Uint8Array): Promise<Uint8Array>;
  verifyInclusion(o: object): Promise<{ ok: boolean; reason: string; steps: unknown[] }>;
};
const note = (await load('note')) as unknown as {
  verifyNote(note: string, vkeys: string[]): Promise<{ ok: boolean; results: { status: string }[] }>;
};
const jcs = (await load('jcs')) as unknown as { canonicalize(v: unknown): string };
const cbor = (await load('cbor')) as unknown as { decodeCbor(b: Uint8Array): unknown };

function ed25519Signer(name: string) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pub = new Uint8Array(Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url'));
  const seed = new Uint8Array(Buffer.from(privateKey.export({ format: 'jwk' }).d as string, 'base64url'));
  return { name, alg: 'ed25519' as const, publicKey: pub, secretKey: new Uint8Array([...seed, ...pub]) };
}

describe('merkle.js (RFC 9162 inclusion)', () => {
  it('accepts every proof of the reference trees up to 33 leaves and rejects a changed sibling', async () => {
    const inputs = Array.from({ length: 33 }, (_, i) => new Uint8Array(32).fill(i + 1));
    for (let size = 1; size <= inputs.length; size++) {
      const root = naiveRoot(inputs, size);
      for (let index = 0; index < size; index++) {
        const proof = naiveInclusion(index, inputs, size);
        const leaf = await merkle.leafHash(inputs[index]!);
        const good = await merkle.verifyInclusion({ index, treeSize: size, leaf, proof, root });
        expect(good.ok, `index ${index} of ${size}`).toBe(true);
        if (proof.length > 0) {
          const bad = proof.map((p) => p.slice());
          bad[bad.length - 1]![0]! ^= 1;
          expect((await merkle.verifyInclusion({ index, treeSize: size, leaf, proof: bad, root })).ok).toBe(
            false,
          );
        }
        // The same proof for a neighbouring index must not verify.
        if (size > 1) {
          const other = (index + 1) % size;
          expect((await merkle.verifyInclusion({ index: other, treeSize: size, leaf, proof, root })).ok).toBe(
            false,
          );
        }
      }
    }
  });
});

describe('note.js (C2SP signed notes)', () => {
  it('verifies notes signed by the core, including keys whose base64 holds a "+"', async () => {
    let sawPlus = false;
    for (let i = 0; i < 24 || !sawPlus; i++) {
      const signer = ed25519Signer('log.example/test');
      const vkeyResult = noteVerifierKey(signer.name, 'ed25519', signer.publicKey);
      if (!vkeyResult.ok) throw new Error(vkeyResult.error.message);
      const vkey = formatVerifierKey(vkeyResult.value);
      sawPlus ||= vkey.split('+').length > 3;
      const signed = signNote('log.example/test\n7\nAAAA\n', [signer]);
      if (!signed.ok) throw new Error(signed.error.message);
      expect((await note.verifyNote(signed.value, [vkey])).ok).toBe(true);
      const altered = signed.value.replace('\n7\n', '\n8\n');
      const verdict = await note.verifyNote(altered, [vkey]);
      expect(verdict.ok).toBe(false);
      expect(verdict.results[0]!.status).toBe('INVALID');
    }
  });
});

describe('jcs.js and cbor.js', () => {
  const bundle = buildSignedBundle({ tier: 'elevated', entries: 3 }).signed_bundle;

  it('canonicalizes a real bundle exactly as the core does', () => {
    const core = canonicalizeV2(bundle);
    if (!core.ok) throw new Error(core.error.message);
    expect(jcs.canonicalize(bundle)).toBe(core.value);
    // Key order by UTF-16 code units (an astral character sorts before U+FB00), strings escaped as JSON.
    const tricky = { b: [1, -7, 'é\u2028"'], a: null, '\u00e9': true, '\ud83d\ude00': 1, '\ufb00': 2, Z: {} };
    const expected = canonicalizeV2(tricky);
    if (!expected.ok) throw new Error(expected.error.message);
    expect(jcs.canonicalize(tricky)).toBe(expected.value);
  });

  it('reads the CBOR wire form back to the JSON form the service reads (byte strings as *_b64)', () => {
    const bytes = encodeCbor(bundle);
    expect(cbor.decodeCbor(new Uint8Array(bytes))).toEqual(serviceDecodeCbor(bytes));
    expect(encodeBase64(new Uint8Array([1]))).toBe('AQ==');
  });
});
