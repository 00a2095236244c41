// The console's browser modules run in Node too (same WebCrypto): checked here against the stack's own
// implementations of RFC 9162, C2SP signed notes, RFC 8785 and the CBOR wire format. Issue 17; D2, D18.
import { generateKeyPairSync } from 'node:crypto';
import {
  buildSignedBundle,
  canonicalizeV2,
  encodeBase64,
  formatVerifierKey,
  instantOf,
  noteVerifierKey,
  signNote,
} from '@proto/core';
import { encodeCbor, decodeCbor as serviceDecodeCbor } from '@proto/service-kit';
import {
  cborEdits,
  cborKeys,
  cborOutcome,
  cborTokenStreams,
  cborValues,
  mutated,
} from '@proto/service-kit/testing';
import { referenceLeafHashes, referencePath, referenceRoot } from '@proto/testing';
import fc from 'fast-check';
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
const instant = (await load('instant')) as unknown as {
  instantOf(text: unknown, reading: 'earliest' | 'latest'): number;
};
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

describe('cbor.js reads as strictly as the service (PROTOCOL §8.2, P82)', () => {
  /** The page's reader is given a plain Uint8Array, as a dropped file gives it. */
  const sameAsService = (bytes: Uint8Array): void => {
    expect(cborOutcome(cbor.decodeCbor, Uint8Array.from(bytes))).toStrictEqual(
      cborOutcome(serviceDecodeCbor, bytes),
    );
  };

  it('refuses every fault the service refuses, naming the same byte', () => {
    for (const [hex, fault] of [
      ['', 'empty CBOR body'],
      ['a2616101616102', 'duplicate map key "a" at byte 4'],
      ['a261614101616102', 'duplicate map key "a" at byte 5'],
      [
        'a2637369674101677369675f6236346441513d3d',
        'key "sig_b64" appears twice after byte-string renaming at byte 7',
      ],
      [
        'a2677369675f6236346441513d3d637369674101',
        'key "sig_b64" appears twice after byte-string renaming at byte 14',
      ],
      ['9f01ff', 'indefinite length at byte 0'],
      ['bf616101ff', 'indefinite length at byte 0'],
      ['a10102', 'map key is not a text string at byte 1'],
      ['a1410101', 'map key is not a text string at byte 1'],
      ['c11a514b67b0', 'tags are not allowed (byte 0)'],
      ['f97e00', 'floating-point numbers are not allowed (byte 0)'],
      ['fb3ff8000000000000', 'floating-point numbers are not allowed (byte 0)'],
      ['f7', 'undefined is not allowed (byte 0)'],
      ['f0', 'simple value 16 is not allowed (byte 0)'],
      ['1c', 'reserved additional information 28 at byte 0'],
      ['1b0020000000000000', 'integer or length above 2^53 at byte 0'],
      ['62c328', 'invalid UTF-8 text at byte 0'],
      ['a1695f5f70726f746f5f5f01', 'forbidden map key "__proto__" at byte 1'],
      [`${'81'.repeat(129)}01`, 'nesting deeper than 128'],
      ['0000', 'trailing bytes after the CBOR item (byte 1)'],
      ['83', 'truncated CBOR at byte 1'],
    ] as const) {
      const bytes = Uint8Array.from(Buffer.from(hex, 'hex'));
      expect(cborOutcome(cbor.decodeCbor, bytes), hex).toStrictEqual({ refused: `CborError: ${fault}` });
      sameAsService(bytes);
    }
  });

  it('reads what the service reads to the same value (U+FEFF kept, bytes as base64 anywhere)', () => {
    const bom = `\uFEFF${'x'.repeat(97)}`;
    for (const value of [{ a: 1, '\uFEFFa': 2 }, { [bom]: [bom, new Uint8Array([1, 2])] }, -(2 ** 53) + 1]) {
      sameAsService(encodeCbor(value));
    }
    expect(cbor.decodeCbor(Uint8Array.from(Buffer.from('a261610164efbbbf6102', 'hex')))).toStrictEqual({
      a: 1,
      '\uFEFFa': 2,
    });
    expect(cbor.decodeCbor(Uint8Array.from(Buffer.from('824101a1617341ff', 'hex')))).toStrictEqual([
      'AQ==',
      { s_b64: '/w==' },
    ]);
  });

  it('gives the value or the refusal of the service for encoded, mutated, tokenised and random bytes', () => {
    const values = cborValues({
      keys: cborKeys,
      maxItems: 5,
      maxBytes: 40,
      floats: false,
      undefinedItems: false,
      leafWeight: 1,
    });
    fc.assert(
      fc.property(values, cborEdits, (value, edits) => {
        let bytes: Uint8Array;
        try {
          bytes = encodeCbor(value);
        } catch {
          return; // -2^53: not an integer the encoder writes
        }
        sameAsService(bytes);
        sameAsService(mutated(bytes, edits));
      }),
      { numRuns: 1000 },
    );
    fc.assert(fc.property(cborTokenStreams, sameAsService), { numRuns: 2000 });
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), sameAsService), { numRuns: 1000 });
  });
});

describe('instant.js reads times as core does (P178, P222)', () => {
  it('agrees with instantOf on leap seconds, ordinary times and garbage, on both sides', () => {
    const texts = [
      '2016-12-31T23:59:60Z',
      '2016-12-31T23:59:60.5Z',
      '2017-01-01T05:29:60+05:30',
      '2016-12-31T12:30:60Z',
      '2016-12-31T23:59:60',
      '2030-06-30T23:59:59.5+01:00',
      '2026-03-07T12:00:00+05',
      '2026-03-07 12:00:00+0530',
      '0001-01-01 00:00:00Z',
      '2017-01-01\t05:59:60+06',
      '2026-03-07T12:00:00+05:',
      'soon',
      '',
    ];
    for (const text of texts)
      for (const reading of ['earliest', 'latest'] as const)
        expect(instant.instantOf(text, reading), `${text} ${reading}`).toBe(instantOf(text, reading));
    expect(instant.instantOf(undefined, 'earliest')).toBeNaN();
  });
});
