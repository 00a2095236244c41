// Publication checks each stored cosignature line on its own (P200's second half), so one bad line already in the
// store, written before P200 or by any path that skipped the answer's checks, cannot keep a k-of-n log from
// publishing. The line is written straight into the log's SQLite store (a second handle on its DATA_DIR) for a size
// not yet signed; the real log then signs that size, two real witnesses cosign it, and GET /checkpoint must serve it
// with their two lines and without the stored one (P214).
import { cosignCheckpoint, formatSignatureLine, selectCryptoBackend } from '@proto/core';
import { openStore } from '@proto/store';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_NAME } from '../../src/app.ts';
import {
  appendHashes,
  type RunningWitness,
  servedCheckpoint,
  type TestLogIdentity,
  testLogIdentity,
} from '../../src/test-helpers.ts';
import { bundleHash } from '../../src/test-support.ts';
import { witnessId } from '../../src/witness-config.ts';
import { type LogWithFrontWitness, startLogWithFrontWitness, testCosigner } from './testing/front-witness.ts';

const backend = selectCryptoBackend();
const identity: TestLogIdentity = testLogIdentity('log.test/stored-filter');
let setup: LogWithFrontWitness;
let log: FastifyInstance;
let logDir: string;
let honest: readonly RunningWitness[];

/** The third configured witness: its key is ours, so the test can write a line that parses as its own. */
const third = testCosigner('witness.test/stored-bad');

beforeAll(async () => {
  setup = await startLogWithFrontWitness({
    identity,
    honestNames: ['witness.test/stored-a', 'witness.test/stored-b'],
    frontKey: third,
    // The third witness is never reached (503): the only line of it the log holds is the one written below.
    answer: (_request, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('down');
    },
    label: 'stored-filter',
  });
  ({ log, logDir, honest } = setup);
});

afterAll(async () => {
  await setup?.close();
});

describe('P214: a bad cosignature line already in the store', () => {
  it('is left out at publication; the checkpoint is served with the two lines that verify', async () => {
    const size = 3;
    await appendHashes(
      log,
      Array.from({ length: size }, (_, i) => bundleHash(i, 'stored-filter')),
    );
    // A line under the third witness's name and key ID, signed by its key, over another text than the checkpoint.
    const signed = cosignCheckpoint(
      `${identity.origin}\n${size}\n${Buffer.alloc(32, 7).toString('base64')}\n`,
      third,
      Math.floor(Date.now() / 1000),
      backend,
    );
    if (!signed.ok) throw new Error(signed.error.message);
    const badLine = formatSignatureLine(signed.value);
    const store = await openStore({ dataDir: logDir, name: SERVICE_NAME });
    try {
      expect(await store.logCosignatures.save(size, witnessId(third), badLine)).toBe(true);
    } finally {
      await store.close();
    }

    await log.transparencyLog.checkpointer.tick();
    const served = await servedCheckpoint(log);
    // With the filter reverted (the stored lines checked only together): the empty tree's checkpoint stays served
    // ("expected +0 to be 3"), for good, since the log never asks the third witness again about a size the store
    // says it cosigned.
    expect(served.status).toBe(200);
    expect(Number(served.note.split('\n')[1])).toBe(size);
    for (const w of honest) expect(served.note).toContain(`\u2014 ${w.key.name} `);
    expect(served.note).not.toContain(badLine.trimEnd());
    expect(served.note).not.toContain('witness.test/stored-bad');
  });
});
