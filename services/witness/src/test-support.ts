// Testing entry (@proto/witness/testing): a quiet witness for tests, and a stand-in log (Ed25519 note key,
// RFC 9162 trees from core) that signs checkpoints and builds add-checkpoint bodies. Issue 18 item 2.
import {
  formatAddCheckpointRequest,
  formatVerifierKey,
  type NoteSigner,
  noteVerifierKey,
  rfc9162ConsistencyProof,
  rfc9162LeafHash,
  rfc9162Root,
  selectCryptoBackend,
  signLogCheckpoint,
} from '@proto/core';
import type { StoreOptions } from '@proto/store';
import type { FastifyInstance } from 'fastify';
import { buildWitness } from './app.ts';
import { loadWitnessConfig, type WitnessConfig } from './config.ts';

/** Configuration for tests: quiet, no rate limit, no load shedding; `env` overrides (WITNESS_LOGS!). */
export function testWitnessConfig(dataDir: string, env: Record<string, string> = {}): WitnessConfig {
  return loadWitnessConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    ADD_RATE_LIMIT_PER_MINUTE: '0',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    // P582: tests read /ready and /metrics right after changing a dependency; the code's 1000 would hide it.
    PROBE_REUSE_MS: '0',
    WITNESS_NAME: 'witness.test/w1',
    ...env,
  });
}

/** A witness app (not listening): `app.witness.vkey` is its verifier key. */
export function buildTestWitness(
  dataDir: string,
  env: Record<string, string> = {},
  store: Partial<StoreOptions> = {},
  clock?: () => Date,
): Promise<FastifyInstance> {
  return buildWitness({
    config: testWitnessConfig(dataDir, env),
    store,
    logger: false,
    ...(clock === undefined ? {} : { clock }),
  });
}

/** A stand-in log: an Ed25519 checkpoint key and leaves; `vkey` goes into the witness's WITNESS_LOGS. */
export class TestLog {
  readonly origin: string;
  readonly signer: NoteSigner;
  readonly vkey: string;
  readonly leaves: Uint8Array[] = [];

  constructor(origin = 'log.test/tree') {
    const pair = selectCryptoBackend().generateKeyPair('ed25519');
    this.origin = origin;
    this.signer = { ...pair, name: origin, alg: 'ed25519' };
    const key = noteVerifierKey(origin, 'ed25519', pair.publicKey);
    if (!key.ok) throw new Error(key.error.message);
    this.vkey = formatVerifierKey(key.value);
  }

  /** Appends `n` distinct leaves (tag keeps two forks of one log apart). */
  grow(n: number, tag = 'leaf'): this {
    for (let i = 0; i < n; i++)
      this.leaves.push(rfc9162LeafHash(new TextEncoder().encode(`${tag}:${this.leaves.length}`)));
    return this;
  }

  /** A signed checkpoint of the first `size` leaves (default: all), by `signer` (default: the log's key). */
  checkpoint(size = this.leaves.length, signer: NoteSigner = this.signer): string {
    const note = signLogCheckpoint(
      { origin: this.origin, size, root: rfc9162Root(this.leaves.slice(0, size)), extensions: [] },
      [signer],
    );
    if (!note.ok) throw new Error(note.error.message);
    return note.value;
  }

  /** The add-checkpoint body from `oldSize` to `size` with a real consistency proof. */
  addCheckpointBody(oldSize: number, size = this.leaves.length, note = this.checkpoint(size)): string {
    const tree = this.leaves.slice(0, size);
    const proof = oldSize === 0 || oldSize === size ? [] : rfc9162ConsistencyProof(tree, oldSize);
    return formatAddCheckpointRequest({ oldSize, proof, checkpoint: note });
  }
}
