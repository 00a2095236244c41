import { describe, expect, it } from 'vitest';
import { selectCryptoBackend } from '../crypto/index.ts';
import { rfc9162ConsistencyProof, rfc9162LeafHash, rfc9162Root } from '../merkle/rfc9162.ts';
import { signLogCheckpoint } from './checkpoint.ts';
import { type NoteSigner, noteVerifierKey } from './note.ts';
import {
  decideAddCheckpoint,
  formatAddCheckpointRequest,
  parseAddCheckpointRequest,
  type WitnessedLog,
} from './witness-protocol.ts';

const backend = selectCryptoBackend();
const ORIGIN = 'log.example/test';
const pair = backend.generateKeyPair('ed25519');
const signer: NoteSigner = { ...pair, name: ORIGIN, alg: 'ed25519' };
const key = noteVerifierKey(ORIGIN, 'ed25519', pair.publicKey);
if (!key.ok) throw new Error('key');
const logs: WitnessedLog[] = [{ origin: ORIGIN, keys: [key.value] }];

const leaves = (n: number, tag = 'a') =>
  Array.from({ length: n }, (_, i) => rfc9162LeafHash(new TextEncoder().encode(`${tag}${i}`)));

function checkpoint(hashes: Uint8Array[], by: NoteSigner = signer): string {
  const note = signLogCheckpoint(
    { origin: by.name, size: hashes.length, root: rfc9162Root(hashes), extensions: [] },
    [by],
  );
  if (!note.ok) throw new Error(note.error.message);
  return note.value;
}

describe('tlog-witness add-checkpoint decisions', () => {
  it('parses the spec example layout and round-trips', () => {
    const tree = leaves(7);
    const body = formatAddCheckpointRequest({
      oldSize: 4,
      proof: rfc9162ConsistencyProof(tree, 4),
      checkpoint: checkpoint(tree),
    });
    expect(body.startsWith('old 4\n')).toBe(true);
    const parsed = parseAddCheckpointRequest(body);
    expect(parsed.ok && parsed.value.proof.length).toBe(rfc9162ConsistencyProof(tree, 4).length);
    for (const bad of ['old 04\n\nx', 'old -1\n\nx', 'new 1\n\nx', 'old 1\nnot-base64!\n\nx', 'old 1\nx'])
      expect(parseAddCheckpointRequest(bad).ok).toBe(false);
  });

  it('accepts a first checkpoint from 0 and a consistent extension', () => {
    const tree = leaves(10);
    const first = decideAddCheckpoint(
      { oldSize: 0, proof: [], checkpoint: checkpoint(tree.slice(0, 6)) },
      logs,
      undefined,
    );
    expect(first.accept).toBe(true);
    const known = { size: 6, root: rfc9162Root(tree.slice(0, 6)) };
    const next = decideAddCheckpoint(
      { oldSize: 6, proof: rfc9162ConsistencyProof(tree, 6), checkpoint: checkpoint(tree) },
      logs,
      known,
    );
    expect(next.accept).toBe(true);
  });

  it('refuses per the spec: 404 unknown origin, 403 untrusted key, 400 old > size, 409 stale old size', () => {
    const tree = leaves(8);
    const known = { size: 5, root: rfc9162Root(tree.slice(0, 5)) };
    const stranger = {
      ...backend.generateKeyPair('ed25519'),
      name: 'other.example/log',
      alg: 'ed25519' as const,
    };
    const impostor = { ...signer, ...backend.generateKeyPair('ed25519') };
    const cases: [number, string, number][] = [
      [404, checkpoint(tree, stranger), 5],
      [403, checkpoint(tree, impostor), 5],
      [400, checkpoint(tree.slice(0, 4)), 5],
      [409, checkpoint(tree), 3],
    ];
    for (const [status, note, oldSize] of cases) {
      const decision = decideAddCheckpoint({ oldSize, proof: [], checkpoint: note }, logs, known);
      expect(decision.accept ? 200 : decision.status).toBe(status);
      if (!decision.accept && decision.status === 409) expect(decision.knownSize).toBe(5);
      // An impostor's line does not name the trusted key: no trusted signature at all.
      if (!decision.accept && decision.status === 403) expect(decision.code).toBe('SIGNATURE_MISSING');
    }
  });

  it('split view: a different tree of the same size, or a larger inconsistent one, is 422', () => {
    const honest = leaves(8);
    const forked = [...honest.slice(0, 3), ...leaves(5, 'fork')];
    const known = { size: 8, root: rfc9162Root(honest) };
    const sameSize = decideAddCheckpoint(
      { oldSize: 8, proof: [], checkpoint: checkpoint(forked) },
      logs,
      known,
    );
    expect(sameSize.accept ? 200 : sameSize.status).toBe(422);
    const bigger = [...forked, ...leaves(4, 'more')];
    const larger = decideAddCheckpoint(
      { oldSize: 8, proof: rfc9162ConsistencyProof(bigger, 8), checkpoint: checkpoint(bigger) },
      logs,
      known,
    );
    expect(larger.accept ? 200 : larger.status).toBe(422);
    const fromZeroWithProof = decideAddCheckpoint(
      { oldSize: 0, proof: [honest[0]!], checkpoint: checkpoint(honest) },
      logs,
      undefined,
    );
    expect(fromZeroWithProof.accept ? 200 : fromZeroWithProof.status).toBe(422);
  });
});
