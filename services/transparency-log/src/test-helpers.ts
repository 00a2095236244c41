// Test helpers for the log with witnesses (issue 18 item 2): log keys made up front, so the witness can trust the
// log before the log exists; the real witness service (@proto/witness) listening on a port.

import type { AddressInfo } from 'node:net';
import {
  type Cosigner,
  type CosignerKey,
  cosignerKey,
  encodeBase64,
  formatVerifierKey,
  noteVerifierKey,
  parseCosignerKey,
  selectCryptoBackend,
} from '@proto/core';
import type { StoreOptions } from '@proto/store';
import { buildTestWitness } from '@proto/witness/testing';
import type { FastifyInstance } from 'fastify';
import { OPERATOR_AUTH } from './test-support.ts';

export interface TestLogIdentity {
  readonly origin: string;
  /** LOG_ED25519_KEY and LOG_MLDSA_KEY: two log instances given the same env sign as one log. */
  readonly env: Record<string, string>;
  /** The log's Ed25519 checkpoint vkey: what a witness trusts the log by. */
  readonly vkey: string;
}

export function testLogIdentity(origin: string): TestLogIdentity {
  const backend = selectCryptoBackend();
  const ed25519 = backend.generateKeyPair('ed25519');
  const key = noteVerifierKey(origin, 'ed25519', ed25519.publicKey);
  if (!key.ok) throw new Error(key.error.message);
  return {
    origin,
    vkey: formatVerifierKey(key.value),
    env: {
      LOG_ORIGIN: origin,
      LOG_ED25519_KEY: encodeBase64(ed25519.secretKey),
      LOG_MLDSA_KEY: encodeBase64(backend.generateKeyPair('ml-dsa-65').secretKey),
    },
  };
}

/** A witness key pair held by the test itself: lines it signs parse as that configured witness's own. */
export function testCosigner(name: string): Cosigner {
  const backend = selectCryptoBackend();
  const pair = backend.generateKeyPair('ed25519');
  const key = cosignerKey(name, pair.publicKey);
  if (!key.ok) throw new Error(key.error.message);
  return { ...key.value, secretKey: pair.secretKey };
}

export interface RunningWitness {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly port: number;
  readonly vkey: string;
  readonly key: CosignerKey;
  close(): Promise<void>;
}

/**
 * The real witness service, trusting `logs`, listening on 127.0.0.1:`port` (0: any free port). Its key is
 * generated into `dataDir` on first start, so a witness restarted on the same directory keeps its identity
 * and what it cosigned (SQLite in `dataDir` unless `store` says otherwise).
 */
export async function startWitness(
  dataDir: string,
  name: string,
  logs: readonly TestLogIdentity[],
  options: {
    readonly port?: number;
    readonly store?: Partial<StoreOptions>;
    /** The witness's clock (default the real one): the time its cosignatures state. */
    readonly clock?: () => Date;
  } = {},
): Promise<RunningWitness> {
  const app = await buildTestWitness(
    dataDir,
    { WITNESS_NAME: name, WITNESS_LOGS: logs.map((l) => `${l.origin} ${l.vkey}`).join(';') },
    options.store ?? {},
    options.clock,
  );
  await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const key = parseCosignerKey(app.witness.vkey);
  if (!key.ok) throw new Error(key.error.message);
  return {
    app,
    port,
    url: `http://127.0.0.1:${port}`,
    vkey: app.witness.vkey,
    key: key.value,
    close: () => app.close(),
  };
}

/** LOG_WITNESSES for these witnesses (comma list of "<url> <vkey>"). */
export function logWitnessesEnv(witnesses: ReadonlyArray<{ url: string; vkey: string }>): string {
  return witnesses.map((w) => `${w.url} ${w.vkey}`).join(', ');
}

/** Appends `n` distinct bundle hashes over HTTP (tag keeps two forks apart). */
export async function appendHashes(app: FastifyInstance, hashes: readonly string[]): Promise<void> {
  for (const hash of hashes) {
    const res = await app.inject({
      method: 'POST',
      url: '/add',
      payload: { bundle_hash: hash },
      headers: OPERATOR_AUTH,
    });
    if (res.statusCode !== 201 && res.statusCode !== 200)
      throw new Error(`append answered ${res.statusCode}`);
  }
}

/** GET /checkpoint over HTTP: the status and the note served. */
export async function servedCheckpoint(app: FastifyInstance): Promise<{ status: number; note: string }> {
  const res = await app.inject({ method: 'GET', url: '/checkpoint' });
  return { status: res.statusCode, note: res.body };
}
