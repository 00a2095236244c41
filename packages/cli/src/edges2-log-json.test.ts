// P387: `proto log verify` reads its JSON files as every other `proto` input (P336, P381): a member named `__proto__`
// or a `constructor` holding `prototype` is unusable input (exit 2), where P323's reader checked only for one
// canonical reading and verified such a checkpoint file, exit 0. The real log server and the real CLI.
import { writeFileSync } from 'node:fs';
import { type LogTestServer, startLogServer } from '@proto/anchor/testing';
import { tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './test-support.ts';

const work = tempDirSync('cli-edges2-log-json');
let log: LogTestServer;
let note: string;

beforeAll(async () => {
  log = await startLogServer();
  const added = await fetch(`${log.url}/add`, {
    method: 'POST',
    headers: { authorization: `Bearer ${log.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ bundle_hash: `sha256:${'0e'.repeat(32)}` }),
  });
  expect(added.status).toBeLessThan(300);
  await log.checkpoint();
  note = await (await fetch(`${log.url}/checkpoint`)).text();
}, 60_000);
afterAll(async () => {
  await log?.close();
  work.remove();
});

const file = (name: string, text: string) => {
  const path = `${work.dir}/${name}`;
  writeFileSync(path, text);
  return path;
};
const verify = (path: string) => runCli(['log', 'verify', '--checkpoint', path, '--key', log.verifierKey]);

describe('P387: proto log verify refuses prototype member names', { timeout: 60_000 }, () => {
  it.each([
    ['__proto__', () => `{"__proto__":{"x":1},"checkpoint":${JSON.stringify(note)}}`, '"__proto__"'],
    [
      'constructor.prototype',
      () => `{"constructor":{"prototype":{"x":1}},"checkpoint":${JSON.stringify(note)}}`,
      'constructor.prototype',
    ],
  ])('a checkpoint file with %s beside the real note: exit 2 naming it', async (name, text, named) => {
    const run = await verify(file(`${name}.json`, text()));
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toContain(named);
  });

  it('the checkpoint file without it verifies; one leading byte-order mark is dropped (controls)', async () => {
    const plain = JSON.stringify({ checkpoint: note });
    expect((await verify(file('plain.json', plain))).code).toBe(0);
    expect((await verify(file('bom.json', `\uFEFF${plain}`))).code).toBe(0);
  });
});
