// P323: `proto log verify` reads JSON files (a checkpoint as GET /root/signed answers it, a proof, a key list) with
// one canonical reading, as every other `proto` input (P320 for verify's evidence). With plain JSON.parse, a member
// named twice kept its last value: a checkpoint file whose first `checkpoint` (what a person or a first-wins reader
// sees) is a forged note and whose last is the log's real one verified, exit 0.
import { writeFileSync } from 'node:fs';
import { type LogTestServer, startLogServer } from '@proto/anchor/testing';
import { tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './test-support.ts';

const work = tempDirSync('cli-redteam-log-json');
let log: LogTestServer;
let note: string;

beforeAll(async () => {
  log = await startLogServer();
  const added = await fetch(`${log.url}/add`, {
    method: 'POST',
    headers: { authorization: `Bearer ${log.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ bundle_hash: `sha256:${'0d'.repeat(32)}` }),
  });
  expect(added.status).toBeLessThan(300);
  await log.checkpoint();
  note = await (await fetch(`${log.url}/checkpoint`)).text();
}, 60_000);
afterAll(async () => {
  await log?.close();
  work.remove();
});

describe('P323: proto log verify refuses JSON with a member named twice', { timeout: 60_000 }, () => {
  const file = (name: string, text: string) => {
    const path = `${work.dir}/${name}`;
    writeFileSync(path, text);
    return path;
  };

  it('a checkpoint file whose first `checkpoint` is forged and whose last is real: exit 2', async () => {
    const forged = note.replace(/\n\d+\n/, '\n999999\n');
    const twice = `{"checkpoint":${JSON.stringify(forged)},"checkpoint":${JSON.stringify(note)}}`;
    const run = await runCli([
      'log',
      'verify',
      '--checkpoint',
      file('twice.json', twice),
      '--key',
      log.verifierKey,
    ]);
    // Before P323: the last (real) note verified, exit 0, the forged size 999999 never noticed.
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toMatch(/member name "checkpoint" appears twice/);
  });

  it('the same checkpoint once verifies (the control)', async () => {
    const once = JSON.stringify({ checkpoint: note });
    const run = await runCli([
      'log',
      'verify',
      '--checkpoint',
      file('once.json', once),
      '--key',
      log.verifierKey,
    ]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });
});
