// Checkpoints, offline inclusion and consistency checks, and C2SP tlog-proofs, against in-memory RFC 9162 trees.
// DECISIONS D18 (leaf input = 32 raw bytes of bundle_hash, checkpoint root base64), c2sp.org/tlog-checkpoint, tlog-proof.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { selectCryptoBackend } from '../crypto/index.ts';
import { encodeBase64, toHex } from '../encoding/index.ts';
import {
  rfc9162ConsistencyProof,
  rfc9162InclusionProof,
  rfc9162LeafHash,
  rfc9162Root,
} from '../merkle/index.ts';
import {
  formatLogCheckpoint,
  formatTlogProof,
  type NoteSigner,
  noteVerifierKey,
  openLogCheckpoint,
  parseLogCheckpoint,
  parseTlogProof,
  signLogCheckpoint,
  tlogLeafInput,
  verifyTlogConsistency,
  verifyTlogInclusion,
  verifyTlogProof,
} from './index.ts';

const backend = selectCryptoBackend();
const ORIGIN = 'signed-bundles.test/log';

function bundleHash(i: number): string {
  return `sha256:${createHash('sha256').update(`bundle ${i}`).digest('hex')}`;
}

function tree(size: number) {
  const hashes = Array.from({ length: size }, (_, i) => bundleHash(i));
  const leaves = hashes.map((h) => {
    const input = tlogLeafInput(h);
    if (!input.ok) throw new Error('leaf');
    return rfc9162LeafHash(input.value);
  });
  return { hashes, leaves, root: rfc9162Root(leaves) };
}

function signers(): { signers: NoteSigner[]; keys: ReturnType<typeof keysOf> } {
  const list: NoteSigner[] = (['ed25519', 'ml-dsa-65'] as const).map((alg) => {
    const pair = backend.generateKeyPair(alg);
    return { name: ORIGIN, alg, secretKey: pair.secretKey, publicKey: pair.publicKey };
  });
  return { signers: list, keys: keysOf(list) };
}

function keysOf(list: NoteSigner[]) {
  return list.map((s) => {
    const key = noteVerifierKey(s.name, s.alg, s.publicKey);
    if (!key.ok) throw new Error('key');
    return key.value;
  });
}

describe('checkpoint text', () => {
  it('formats and parses origin, decimal size and base64 root', () => {
    const root = new Uint8Array(32).fill(7);
    const text = formatLogCheckpoint({ origin: ORIGIN, size: 1234, root });
    expect(text.ok && text.value).toBe(`${ORIGIN}\n1234\n${encodeBase64(root)}\n`);
    const parsed = parseLogCheckpoint(text.ok ? text.value : '');
    expect(parsed.ok && parsed.value.size).toBe(1234);
    expect(parsed.ok && toHex(parsed.value.root)).toBe(toHex(root));
    const withExtension = parseLogCheckpoint(`${ORIGIN}\n0\n${encodeBase64(root)}\nextra line\n`);
    expect(withExtension.ok && withExtension.value.extensions).toEqual(['extra line']);
  });

  it('parses the C2SP example body', () => {
    const parsed = parseLogCheckpoint(
      'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
    );
    expect(parsed.ok && parsed.value.size).toBe(20852163);
  });

  it('refuses malformed bodies', () => {
    const root = encodeBase64(new Uint8Array(32));
    for (const text of [
      `${ORIGIN}\n01\n${root}\n`,
      `${ORIGIN}\n-1\n${root}\n`,
      `${ORIGIN}\n1e3\n${root}\n`,
      `${ORIGIN}\n99999999999999999999\n${root}\n`,
      `${ORIGIN}\n1\n${encodeBase64(new Uint8Array(31))}\n`,
      `${ORIGIN}\n1\n${root}`,
      `${ORIGIN}\n1\n`,
      `\n1\n${root}\n`,
      `${ORIGIN}\n1\n${root}\n\n`,
      42,
    ]) {
      expect(parseLogCheckpoint(text).ok, String(text)).toBe(false);
    }
    expect(formatLogCheckpoint({ origin: 'a\nb', size: 1, root: new Uint8Array(32) }).ok).toBe(false);
    expect(formatLogCheckpoint({ origin: 'a', size: -1, root: new Uint8Array(32) }).ok).toBe(false);
    expect(formatLogCheckpoint({ origin: 'a', size: 1, root: new Uint8Array(3) }).ok).toBe(false);
  });

  it('opens a checkpoint signed by both keys; checks origin and refuses other keys', () => {
    const { signers: s, keys } = signers();
    const t = tree(10);
    const note = signLogCheckpoint({ origin: ORIGIN, size: 10, root: t.root }, s, backend);
    if (!note.ok) throw new Error(note.error.message);
    const opened = openLogCheckpoint(note.value, keys, { backend });
    expect(opened.ok && opened.value.size).toBe(10);
    expect(opened.ok && opened.value.verifiedBy.length).toBe(2);
    const wrongOrigin = openLogCheckpoint(note.value, keys, { backend, origin: 'other.example/log' });
    expect(wrongOrigin.ok).toBe(false);
    const other = signers();
    const refused = openLogCheckpoint(note.value, other.keys, { backend });
    expect(!refused.ok && refused.error.code).toBe('SIGNATURE_MISSING');
  });
});

describe('offline proofs', () => {
  it('verifies inclusion of every leaf and consistency for every size pair up to 40', () => {
    const big = tree(40);
    for (let n = 1; n <= 40; n++) {
      const leaves = big.leaves.slice(0, n);
      const head = { size: n, root: rfc9162Root(leaves) };
      for (let i = 0; i < n; i++) {
        const proof = rfc9162InclusionProof(leaves, i).map(toHex);
        const result = verifyTlogInclusion(head, { bundleHash: big.hashes[i] as string, index: i, proof });
        expect(result.ok, `inclusion ${i}/${n}`).toBe(true);
        if (n > 1) {
          const wrong = verifyTlogInclusion(head, {
            bundleHash: big.hashes[(i + 1) % n] as string,
            index: i,
            proof,
          });
          expect(!wrong.ok && wrong.error.code).toBe('MERKLE_ROOT_MISMATCH');
        }
      }
      for (let m = 0; m <= n; m++) {
        const old = { size: m, root: rfc9162Root(big.leaves.slice(0, m)) };
        const proof = rfc9162ConsistencyProof(leaves, m, n);
        expect(verifyTlogConsistency(old, head, proof).ok, `consistency ${m}->${n}`).toBe(true);
        if (m > 0 && m < n) {
          const forged = { size: m, root: rfc9162Root(big.leaves.slice(1, m + 1)) };
          expect(verifyTlogConsistency(forged, head, proof).ok).toBe(false);
        }
      }
    }
  });

  it('refuses malformed input with a result, never an exception', () => {
    const t = tree(5);
    const head = { size: 5, root: t.root };
    const proof = rfc9162InclusionProof(t.leaves, 2).map(toHex);
    const h = t.hashes[2] as string;
    expect(verifyTlogInclusion(head, { bundleHash: h.toUpperCase(), index: 2, proof }).ok).toBe(false);
    expect(
      verifyTlogInclusion(head, { bundleHash: h.replace('sha256', 'sha3-256'), index: 2, proof }).ok,
    ).toBe(false);
    expect(verifyTlogInclusion(head, { bundleHash: h, index: 5, proof }).ok).toBe(false);
    expect(verifyTlogInclusion(head, { bundleHash: h, index: -1, proof }).ok).toBe(false);
    expect(verifyTlogInclusion(head, { bundleHash: h, index: 2, proof: proof.slice(1) }).ok).toBe(false);
    expect(
      verifyTlogInclusion(head, { bundleHash: h, index: 2, proof: [...proof, proof[0] as string] }).ok,
    ).toBe(false);
    expect(verifyTlogInclusion(head, { bundleHash: h, index: 2, proof: ['zz'] }).ok).toBe(false);
    expect(
      verifyTlogInclusion(head, { bundleHash: h, index: 2, proof: 'nope' as unknown as string[] }).ok,
    ).toBe(false);
    expect(verifyTlogConsistency({ size: 6, root: t.root }, head, []).ok).toBe(false);
    expect(
      verifyTlogConsistency({ size: 5, root: t.root, origin: 'a' }, { ...head, origin: 'b' }, []).ok,
    ).toBe(false);
    expect(verifyTlogConsistency({ size: 5, root: t.root }, head, []).ok).toBe(true);
  });
});

describe('tlog-proof', () => {
  it('round-trips and verifies offline against the embedded checkpoint', () => {
    const { signers: s, keys } = signers();
    const t = tree(21);
    const note = signLogCheckpoint({ origin: ORIGIN, size: 21, root: t.root }, s, backend);
    if (!note.ok) throw new Error('sign');
    const text = formatTlogProof({
      index: 13,
      proof: rfc9162InclusionProof(t.leaves, 13),
      checkpoint: note.value,
      extra: new Uint8Array([1, 2, 3]),
    });
    expect(text.startsWith('c2sp.org/tlog-proof@v1\nextra AQID\nindex 13\n')).toBe(true);
    const parsed = parseTlogProof(text);
    expect(parsed.ok && parsed.value.index).toBe(13);
    const verified = verifyTlogProof(text, t.hashes[13] as string, keys, { backend });
    expect(verified.ok && verified.value.inclusion.treeSize).toBe(21);
    expect(verifyTlogProof(text, t.hashes[12] as string, keys, { backend }).ok).toBe(false);
    for (const bad of [
      '',
      'c2sp.org/tlog-proof@v1\nindex 1\n',
      `c2sp.org/tlog-proof@v2\nindex 1\n\n${note.value}`,
      `c2sp.org/tlog-proof@v1\nindex 01\n\n${note.value}`,
      `c2sp.org/tlog-proof@v1\nindex 1\nAA==\n\n${note.value}`,
    ]) {
      expect(parseTlogProof(bad).ok, bad.slice(0, 40)).toBe(false);
    }
  });
});

describe('never throws', () => {
  it('answers every malformed input with a Result', async () => {
    const fc = await import('fast-check');
    const keys = signers().keys;
    const anything = fc.anything();
    const noteLike = fc
      .array(fc.oneof(fc.string(), fc.constantFrom('\n', '\n\n', '— ', ORIGIN, '+', 'AAAA', '=')), {
        maxLength: 12,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.oneof(anything, noteLike), fc.oneof(anything, noteLike), (a, b) => {
        for (const run of [
          () => parseLogCheckpoint(a),
          () => openLogCheckpoint(a, keys, { backend }),
          () => parseTlogProof(a),
          () => verifyTlogProof(a, b as string, keys, { backend }),
          () =>
            verifyTlogInclusion(
              { size: 3, root: new Uint8Array(32) },
              { bundleHash: a as string, index: b as number, proof: a as string[] },
            ),
          () =>
            verifyTlogConsistency(
              { size: 1, root: new Uint8Array(32) },
              { size: 2, root: new Uint8Array(32) },
              b as string[],
            ),
          () => tlogLeafInput(a),
        ]) {
          const result = run();
          expect(typeof result.ok).toBe('boolean');
        }
      }),
      { numRuns: 300 },
    );
  });
});
