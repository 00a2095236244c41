// The log's witnesses (c2sp.org/tlog-witness), seen as faulty or hostile upstreams. The real log, the real witness
// service behind a node:http front that forwards, or answers with headers then a drip, a huge body, a length it
// never sends, bytes that are not UTF-8, or a redirect to the real witness itself. Each must leave the newest
// checkpoint unpublished (the previous cosigned one is served), end the round within LOG_WITNESS_TIMEOUT_MS, be
// counted per outcome, and catch up once the witness is honest again; a declared length past the cap is closed at
// once (P183: witness-client.ts reads through fetchBounded).
import type { ServerResponse } from 'node:http';
import {
  dripForever,
  type FrontRequest,
  forwardTo,
  type HostileFront,
  lieAboutLength,
  redirectTo,
  startHostileFront,
  type TempDir,
  writeHugeAnswer,
} from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendHashes,
  logWitnessesEnv,
  type RunningWitness,
  servedCheckpoint,
  startWitness,
  type TestLogIdentity,
  testLogIdentity,
} from '../../src/test-helpers.ts';
import { buildTestLog, bundleHash, tempDataDir } from '../../src/test-support.ts';

type Mode = 'forward' | 'drip' | 'huge' | 'redirect' | 'lie' | 'latin1';

const TIMEOUT_MS = 1000;
let mode: Mode = 'forward';
let witness: RunningWitness;
let front: HostileFront;
let log: FastifyInstance;
const dirs: TempDir[] = [];
const identity: TestLogIdentity = testLogIdentity('log.test/hostile-witness');
let appended = 0;
/** For each answer that declared a length past the cap: ms from its headers until the log closed it. */
const lieClosedAfterMs: number[] = [];

const TEXT = { 'content-type': 'text/plain' };

async function hostile(request: FrontRequest, res: ServerResponse): Promise<void> {
  switch (mode) {
    case 'forward': {
      const answer = await forwardTo(`${witness.url}${request.url}`, request);
      res.writeHead(answer.status, TEXT).end(await answer.text());
      return;
    }
    case 'drip':
      return dripForever(res, { headers: TEXT, first: '\u2014 ' });
    case 'huge':
      // 32 MiB of spaces: no cosignature line, and far past what a witness answer may be.
      res.writeHead(200, TEXT);
      return await writeHugeAnswer(res, 32 * 1024 * 1024, '');
    case 'redirect':
      // To the real witness: following it would bring back a valid cosignature.
      return redirectTo(res, `${witness.url}${request.url}`);
    case 'lie': {
      // Declares 500 MiB, sends the start of a cosignature line, then nothing: refused on the header alone.
      const sent = performance.now();
      res.on('close', () => lieClosedAfterMs.push(performance.now() - sent));
      return lieAboutLength(res, { headers: TEXT, first: '\u2014 ' });
    }
    case 'latin1': {
      // The real cosignature with one byte that is not UTF-8 put in front: not text a witness speaks.
      const answer = await forwardTo(`${witness.url}${request.url}`, request);
      const bytes = Buffer.from(await answer.arrayBuffer());
      res.writeHead(answer.status, TEXT).end(Buffer.concat([Buffer.from([0xff]), bytes]));
      return;
    }
  }
}

async function dir(label: string): Promise<string> {
  const made = await tempDataDir(label);
  dirs.push(made);
  return made.dir;
}

function sizeOf(note: string): number {
  return Number(note.split('\n')[1]);
}

async function submissions(outcome: string): Promise<number> {
  const text = (await log.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text
    .split('\n')
    .find((l) => l.startsWith('proto_log_witness_submissions_total{') && l.includes(`outcome="${outcome}"`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

beforeAll(async () => {
  witness = await startWitness(await dir('hostile-witness'), 'witness.test/hostile', [identity]);
  front = await startHostileFront(hostile);
  log = await buildTestLog(
    await dir('hostile-witness-log'),
    {
      ...identity.env,
      LOG_WITNESSES: logWitnessesEnv([{ url: front.url, vkey: witness.vkey }]),
      LOG_WITNESS_TIMEOUT_MS: String(TIMEOUT_MS),
    },
    {},
    { timers: false },
  );
});

afterAll(async () => {
  await log?.close();
  await witness?.close();
  await front?.close();
  for (const made of dirs) await made.remove().catch(() => undefined);
});

/** Appends two entries and signs a checkpoint while the front misbehaves; the served size and the time taken. */
async function roundWith(m: Mode): Promise<{ size: number; ms: number }> {
  await appendHashes(log, [
    bundleHash(appended++, 'hostile-witness'),
    bundleHash(appended++, 'hostile-witness'),
  ]);
  mode = m;
  const started = performance.now();
  try {
    await log.transparencyLog.checkpointer.tick();
  } finally {
    mode = 'forward';
  }
  const ms = performance.now() - started;
  const served = await servedCheckpoint(log);
  return { size: sizeOf(served.note), ms };
}

describe('hostile witnesses: nothing published without a valid cosignature, nothing hangs', () => {
  it('through an honest front the checkpoint is cosigned and published (the fixture is real)', async () => {
    expect((await roundWith('forward')).size).toBe(appended);
  });

  for (const [m, outcome] of [
    ['drip', 'timeout'],
    ['huge', 'unavailable'],
    ['redirect', 'unavailable'],
    ['lie', 'unavailable'],
    ['latin1', 'unavailable'],
  ] as const) {
    it(`${m}: the previous checkpoint stays served, the round ends in time, counted as ${outcome}; then it catches up`, async () => {
      const before = await submissions(outcome);
      const published = appended;
      const { size, ms } = await roundWith(m);
      expect(size).toBe(published);
      expect(ms).toBeLessThan(TIMEOUT_MS + 4000);
      expect(await submissions(outcome)).toBeGreaterThan(before);
      expect((await roundWith('forward')).size).toBe(appended);
    });
  }

  it('an answer declaring a length past the cap is closed at once, not held open until the timeout', async () => {
    const before = lieClosedAfterMs.length;
    await roundWith('lie');
    await expect.poll(() => lieClosedAfterMs.length, { timeout: TIMEOUT_MS + 2000 }).toBeGreaterThan(before);
    // The timeout would close it at TIMEOUT_MS; refusing on the header closes it within a few milliseconds.
    for (const ms of lieClosedAfterMs.slice(before)) expect(ms).toBeLessThan(TIMEOUT_MS / 2);
  });
});
