// `proto verify --log URL --log-key VKEY`: the bundle hash looked up in the real transparency log (in-process),
// its inclusion proved against the log's signed checkpoint under the key the user gives. A bundle the log does
// not hold, a key that is not the log's, and a log that answers for another entry all fail. Issue 13 item 7.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LogTestServer, startLogServer } from '@proto/anchor/testing';
import { buildSignedBundle, computeBundleHash } from '@proto/core';
import { tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.ts';

const work = tempDirSync('cli-log-lookup');
let log: LogTestServer;

const proto = (args: readonly string[], terminal = false) => runInProcess(args, { terminal });

function bundleFile(name: string): { file: string; hash: string } {
  const signed = buildSignedBundle({ tier: 'standard' }).signed_bundle;
  const hash = computeBundleHash(signed);
  if (!hash.ok) throw new Error(hash.error.message);
  const file = `${work.dir}/${name}.json`;
  writeFileSync(file, JSON.stringify(signed));
  return { file, hash: hash.value };
}

async function append(hash: string): Promise<void> {
  const answer = await fetch(`${log.url}/add`, {
    method: 'POST',
    headers: { authorization: `Bearer ${log.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ bundle_hash: hash }),
  });
  expect(answer.status).toBeLessThan(300);
}

const logged = bundleFile('logged');
const absent = bundleFile('absent');

beforeAll(async () => {
  log = await startLogServer();
  await append(bundleFile('before').hash);
  await append(logged.hash);
  await append(bundleFile('after').hash);
  await log.checkpoint();
});
afterAll(async () => {
  await log?.close();
  work.remove();
});

function checks(stdout: string): { verified: boolean; checks: Record<string, string>; errors?: string[] } {
  return JSON.parse(stdout) as { verified: boolean; checks: Record<string, string> };
}

describe('proto verify --log (inclusion by lookup)', () => {
  it('passes for a bundle in the log under the log’s checkpoint key', async () => {
    const run = await proto([
      'verify',
      '--json',
      logged.file,
      '--log',
      log.url,
      '--log-key',
      log.verifierKey,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(checks(run.stdout)).toMatchObject({ verified: true, checks: { log_inclusion: 'pass' } });
  });

  it('fails (exit 1) for a bundle the log does not hold', async () => {
    const run = await proto([
      'verify',
      '--json',
      absent.file,
      '--log',
      log.url,
      '--log-key',
      log.verifierKey,
    ]);
    expect(run.code).toBe(1);
    expect(checks(run.stdout)).toMatchObject({ verified: false, checks: { log_inclusion: 'fail' } });
  });

  it('fails when the checkpoint is not signed by the given key', async () => {
    // Another log of the same origin: its own freshly generated key cannot open this log's checkpoint.
    const other = await startLogServer();
    try {
      const run = await proto([
        'verify',
        '--json',
        logged.file,
        '--log',
        log.url,
        '--log-key',
        other.verifierKey,
      ]);
      expect(run.code).toBe(1);
      expect(checks(run.stdout)).toMatchObject({ verified: false, checks: { log_inclusion: 'fail' } });
    } finally {
      await other.close();
    }
  });

  it('fails when the log answers the lookup with another entry’s index', async () => {
    // A lying front: the lookup names entry 0 (another bundle), the proof it relays is the real one for entry 0.
    const liar = createServer((request, response) => {
      if (request.url?.startsWith('/lookup/')) {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ log_index: 0 }));
        return;
      }
      void fetch(`${log.url}${request.url}`)
        .then((real) => real.text())
        .then((text) => response.end(text));
    });
    await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(liar.address() as AddressInfo).port}`;
    try {
      const run = await proto(['verify', '--json', logged.file, '--log', url, '--log-key', log.verifierKey]);
      expect(run.code).toBe(1);
      expect(checks(run.stdout)).toMatchObject({ verified: false, checks: { log_inclusion: 'fail' } });
    } finally {
      await new Promise((resolve) => liar.close(resolve));
    }
  });

  it('proto log prove --key checks the checkpoint signature before trusting its root', async () => {
    const tiles = ['log', 'prove', '--tiles', log.url, '--index', '1'];
    const signed = await proto([...tiles, '--key', log.verifierKey]);
    expect(signed.code, signed.stderr).toBe(0);
    expect(JSON.parse(signed.stdout)).toMatchObject({
      verified: true,
      matches_checkpoint: true,
      log_index: 1,
    });
    expect(JSON.parse(signed.stdout).checkpoint_signed_by).toHaveLength(1);
    const other = await startLogServer();
    try {
      const wrong = await proto([...tiles, '--key', other.verifierKey]);
      expect(wrong.code).toBe(1);
      expect(JSON.parse(wrong.stdout)).toMatchObject({ verified: false });
    } finally {
      await other.close();
    }
  });

  it('refuses --log without --log-key (exit 2): an unsigned answer proves nothing', async () => {
    const run = await proto(['verify', '--json', logged.file, '--log', log.url]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--log-key');
  });

  it('shows progress on a terminal, none with --json', async () => {
    const readable = await proto(
      ['verify', logged.file, '--log', log.url, '--log-key', log.verifierKey],
      true,
    );
    expect(readable.code).toBe(0);
    expect(readable.stderr).toContain('… looking');
    const json = await proto(
      ['verify', '--json', logged.file, '--log', log.url, '--log-key', log.verifierKey],
      true,
    );
    expect(json.code).toBe(0);
    expect(json.stderr).toBe('');
  });
});
