// P320: the evidence documents `proto verify` reads (`--revocation-list`, `--attestation`, `--receipt`, FILE or URL)
// had one canonical reading checked nowhere: `JSON.parse` kept the last of a member named twice. A signed revocation
// list with a forged first `entries` member (the one a first-wins reader, or a person, sees) was judged on the last
// one, while `proto revocation verify` of the same file refused it (exit 2), as the service refuses such text.
import { writeFileSync } from 'node:fs';
import { buildSignedBundle } from '@proto/core';
import { call, type RunningService, revoke, startService } from '@proto/revocation/testing';
import { tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.ts';

const work = tempDirSync('cli-redteam-evidence-strict');
let revocation: RunningService;
let listKey: string;

beforeAll(async () => {
  revocation = await startService({
    dataDir: tempDirSync('cli-redteam-evidence-strict-service').dir,
    env: { JURISDICTION: 'US', LIST_MAX_AGE_S: '0', LOG_LEVEL: 'warn' },
    timer: false,
  });
  const health = await call(revocation, 'GET', '/health', undefined, null);
  listKey = health.json['revocation_public_key_b64'] as string;
});
afterAll(async () => {
  await revocation?.close();
  work.remove();
});

describe('P320: an evidence document with a member named twice is unreadable input', () => {
  it('a revocation list whose first `entries` names nobody: exit 2, as proto revocation verify', async () => {
    const built = buildSignedBundle({ tier: 'standard' });
    const signed = built.signed_bundle as { bundle: { agent_passport: { payload: { agent_id: string } } } };
    const bundleFile = `${work.dir}/bundle.json`;
    writeFileSync(bundleFile, JSON.stringify(built.signed_bundle));
    expect((await revoke(revocation, signed.bundle.agent_passport.payload.agent_id)).status).toBeLessThan(
      300,
    );
    const text = await (await fetch(revocation.listUrl)).text();
    const member = Object.entries(JSON.parse(text) as Record<string, unknown>).find(([, v]) =>
      Array.isArray(v),
    )?.[0];
    expect(member).toBeDefined();
    const forged = `{"${member}":[],${text.trimStart().slice(1)}`;
    const listFile = `${work.dir}/list-twice.json`;
    writeFileSync(listFile, forged);

    expect((await runInProcess(['revocation', 'verify', listFile, '--key', listKey])).code).toBe(2);
    const run = await runInProcess([
      'verify',
      '--json',
      '--revocation-list',
      listFile,
      '--revocation-key',
      listKey,
      bundleFile,
    ]);
    // Before P320: judged on the last `entries` (exit 1, revoked), the forged first one never noticed.
    expect(run.code, run.stdout).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`member name "${member}" appears twice`));
  });
});
