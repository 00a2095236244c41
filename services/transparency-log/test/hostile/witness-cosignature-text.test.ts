// A configured witness that answers a cosignature valid under its own key, but over another text than the checkpoint
// the log sent: a blank line in its answer moves the signed note's split, so its line "verifies" over the log's note
// plus its own first line. The real log, two real witnesses and this one behind a node:http front, quorum 2 of 3.
// One faulty witness of three must not stop a 2-of-3 log from publishing (P200).
import {
  cosignCheckpoint,
  formatSignatureLine,
  parseAddCheckpointRequest,
  parseSignedNote,
  selectCryptoBackend,
} from '@proto/core';
import type { FrontRequest } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendHashes,
  type RunningWitness,
  servedCheckpoint,
  type TestLogIdentity,
  testLogIdentity,
} from '../../src/test-helpers.ts';
import { bundleHash } from '../../src/test-support.ts';
import { type LogWithFrontWitness, startLogWithFrontWitness, testCosigner } from './testing/front-witness.ts';

const backend = selectCryptoBackend();
const identity: TestLogIdentity = testLogIdentity('log.test/cosignature-text');
let setup: LogWithFrontWitness;
let log: FastifyInstance;
let honest: readonly RunningWitness[];
let appended = 0;

const evil = testCosigner('witness.test/shifted-split');

function line(text: string): string {
  const signed = cosignCheckpoint(text, evil, Math.floor(Date.now() / 1000), backend);
  if (!signed.ok) throw new Error(signed.error.message);
  return formatSignatureLine(signed.value);
}

/** A genuine cosignature line, a blank line, then a cosignature over the log's whole note plus that first line. */
function shiftedAnswer(request: FrontRequest): string {
  const parsed = parseAddCheckpointRequest(request.text());
  if (!parsed.ok) throw new Error(parsed.error.message);
  const note = parsed.value.checkpoint;
  const text = parseSignedNote(note);
  if (!text.ok) throw new Error(text.error.message);
  const first = line(text.value.text);
  return `${first}\n${line(note + first)}`;
}

async function submissions(outcome: string): Promise<number> {
  const text = (await log.inject({ method: 'GET', url: '/metrics' })).body;
  const found = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('proto_log_witness_submissions_total{') &&
        l.includes(`outcome="${outcome}"`) &&
        l.includes('shifted'),
    );
  return found === undefined ? 0 : Number(found.slice(found.lastIndexOf(' ') + 1));
}

beforeAll(async () => {
  setup = await startLogWithFrontWitness({
    identity,
    honestNames: ['witness.test/honest-a', 'witness.test/honest-b'],
    frontKey: evil,
    answer: (request, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(shiftedAnswer(request));
    },
    label: 'cosignature-text',
  });
  ({ log, honest } = setup);
});

afterAll(async () => {
  await setup?.close();
});

describe('P200: a witness cosignature over another text than the checkpoint', () => {
  it('is counted invalid and never stored; the two honest cosignatures publish each checkpoint', async () => {
    for (const _round of [1, 2]) {
      await appendHashes(log, [bundleHash(appended++, 'shifted'), bundleHash(appended++, 'shifted')]);
      const invalidBefore = await submissions('invalid');
      await log.transparencyLog.checkpointer.tick();
      const served = await servedCheckpoint(log);
      // Before P200: 503 (no checkpoint ever published): the shifted line was stored as this witness's
      // cosignature, and the stored set then failed to verify as a whole at every size.
      expect(served.status).toBe(200);
      expect(Number(served.note.split('\n')[1])).toBe(appended);
      expect(served.note).not.toContain('witness.test/shifted-split');
      for (const w of honest) expect(served.note).toContain(`\u2014 ${w.key.name} `);
      expect(await submissions('invalid')).toBeGreaterThan(invalidBefore);
    }
  });
});
