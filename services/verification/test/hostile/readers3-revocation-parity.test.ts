// P457 (brief "readers3" item 3, the revocation check): one list, one verdict and one message from POST /verify (the
// list as a configured REVOCATION_SOURCES source) and `proto verify --revocation-list URL --revocation-key K` (the
// same list, the real CLI spawned). The service looks up the bundle's agent id and every signer's kid in the list
// (D20, P201, P225: a revoked key signs nothing that verifies); the CLI looked up the agent id only, so a bundle whose
// signing key the list revokes was `verified: true` from the CLI and E300 from the service. And the two worded a
// revoked agent differently ("agent X is revoked in list N" against "US: X was revoked at T").
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { currentList, type RunningService, revoke, startService, tempDir } from '@proto/revocation/testing';
import { runProcess, tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

const CLI = fileURLToPath(new URL('../../../../packages/cli/src/main.ts', import.meta.url));
const work = tempDirSync('readers3-revocation');
let us: RunningService;
let dir: ReturnType<typeof tempDir>;
let verifier: RunningApp;
let listKey: string;

beforeAll(async () => {
  dir = tempDir('readers3-revocation-list');
  us = await startService({
    dataDir: dir.dir,
    env: { JURISDICTION: 'US', LIST_MAX_AGE_S: '0', LOG_LEVEL: 'warn' },
    timer: false,
  });
  const health = (await (await fetch(`${us.url}/health`)).json()) as Record<string, unknown>;
  listKey = health['revocation_public_key_b64'] as string;
  verifier = await startApp({
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    VERIFICATION_CACHE_MAX_ENTRIES: '0',
    REVOCATION_SOURCES: JSON.stringify({ US: { url: us.listUrl, keys: [listKey] } }),
  });
}, 60_000);
afterAll(async () => {
  await verifier?.close();
  await us?.close();
  dir?.remove();
  work.remove();
});

type Answer = {
  verified: boolean;
  checks: Record<string, string>;
  error_details?: { code: string; check: string; message: string }[];
};
const gist = (a: Answer) => ({
  verified: a.verified,
  revocation: a.checks['revocation'],
  details: a.error_details?.filter((d) => d.check === 'revocation').map((d) => [d.code, d.message]),
});
let files = 0;
async function both(signed: unknown) {
  const served = (await postVerify(verifier.url, { signed_bundle: signed })).json as unknown as Answer;
  files += 1;
  const where = path.join(work.dir, `bundle-${files}.json`);
  writeFileSync(where, JSON.stringify(signed));
  const run = await runProcess(
    process.execPath,
    [CLI, 'verify', '--json', where, '--revocation-list', us.listUrl, '--revocation-key', listKey],
    { input: '' },
  );
  const local = JSON.parse(run.stdout || `{"stderr": ${JSON.stringify(run.stderr)}}`) as Answer;
  return { served, local, code: run.code };
}

describe('P457: a revocation list gets one verdict and one message from the service and `proto verify`', () => {
  it('control: a bundle the list names nowhere: both pass', async () => {
    const sample = sampleBundle({ tier: 'routine' });
    const { served, local, code } = await both(sample.signed_bundle);
    expect(gist(served)).toEqual({ verified: true, revocation: 'pass', details: undefined });
    expect(gist(local)).toEqual(gist(served));
    expect(code).toBe(0);
  });

  it('a bundle whose signing key (kid) the list revokes: E300 from both, in the same words', async () => {
    const sample = sampleBundle({ tier: 'routine' });
    expect((await revoke(us, sample.keys.principal.classical.kid)).status).toBe(201);
    expect(JSON.stringify(await currentList(us))).toContain(sample.keys.principal.classical.kid);
    const { served, local, code } = await both(sample.signed_bundle);
    expect(gist(served).verified, JSON.stringify(served)).toBe(false);
    expect(gist(served).details?.[0]?.[0]).toBe('PROTO-E300');
    expect(gist(local), JSON.stringify(local)).toEqual(gist(served));
    expect(code).toBe(1);
  });

  it('a bundle whose agent the list revokes: E300 from both, in the same words', async () => {
    const sample = sampleBundle({ tier: 'routine' });
    expect((await revoke(us, sample.agentId as string)).status).toBe(201);
    const { served, local } = await both(sample.signed_bundle);
    expect(gist(served).details?.[0]?.[0]).toBe('PROTO-E300');
    expect(gist(local), JSON.stringify(local)).toEqual(gist(served));
  });
});
