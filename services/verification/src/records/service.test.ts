// The /v2 records inside the real verification service: mounted through main.ts's mountRecords, and the
// service process restarted on the same DATA_DIR keeping every record. docs/architecture.md §4, issue item 8.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp } from '../test-support.ts';
import { loadRecordsConfig, mountRecords } from './plugin.ts';
import { example, withFields } from './test-support.ts';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

/**
 * Runs main.ts on the pinned Node until it logs its address; `stop` sends SIGTERM and awaits exit. The wait has no
 * wall clock of its own (P210): a fixed 20 s ran out on a loaded host while the service was still booting. It ends at
 * what the service signals, its ready line (`listening on …`) or its exit (a failed boot, with its output), and
 * otherwise when `signal` aborts: the test's own timeout (vitest's context signal), which kills the child, so the
 * wait is bounded by the one limit the test declares.
 */
async function startService(
  env: Record<string, string>,
  signal: AbortSignal,
  nodeFlags: readonly string[] = [],
) {
  const child = spawn(process.execPath, [...nodeFlags, MAIN], {
    env: {
      PATH: process.env['PATH'] ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      VERIFY_WORKERS: '1',
      // Load shedding off: a busy test machine's boot-time event-loop lag would answer 503.
      MAX_EVENT_LOOP_DELAY_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const abandon = () => {
      child.kill('SIGKILL');
      reject(new Error(`the test's time ran out before the service listened:\n${output}`));
    };
    if (signal.aborted) abandon();
    signal.addEventListener('abort', abandon, { once: true });
    const read = (data: unknown) => {
      output += String(data);
      const found = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (found?.[1] !== undefined) {
        signal.removeEventListener('abort', abandon);
        resolve(found[1]);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    void exit.then(() => {
      signal.removeEventListener('abort', abandon);
      reject(new Error(`service exited:\n${output}`));
    });
  });
  return {
    url,
    exit,
    stop: async () => {
      child.kill('SIGTERM');
      return exit;
    },
  };
}

/** Two boots of the real service and their requests: the bound of every wait in the restart test (P210). */
const RESTART_TEST_TIMEOUT_MS = 180_000;

describe('/v2 records in the verification service', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'proto-records-service-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('mounts through mountRecords on the service app: routes, headers, docs, store closed with the app', async () => {
    const mounted = await mountRecords(
      loadRecordsConfig({ DATA_DIR: dataDir, STORE_MAX_ENTRIES: '50', RECORDS_WRITE_POLICY: 'open' }),
    );
    // Load shedding off: parallel test files can lag the event loop past its threshold (503).
    const running = await startApp({ VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0' }, [mounted]);
    try {
      const cert = example('commissioning_certificate');
      const created = await fetch(`${running.url}/v2/lifecycle/commission`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ commissioning_certificate: cert }),
      });
      expect(created.status, await created.clone().text()).toBe(201);
      expect(created.headers.get('cache-control')).toBe('no-store');
      expect(created.headers.get('x-frame-options')).toBe('DENY');
      const fetched = await fetch(`${running.url}/v2/lifecycle/commission/${cert['agent_id']}`);
      expect(await fetched.json()).toMatchObject({
        id: cert['agent_id'],
        state: 'commissioned',
        record: cert,
      });
      const docs = (await (await fetch(`${running.url}/docs/json`)).json()) as { paths: object };
      expect(Object.keys(docs.paths).filter((p) => p.startsWith('/v2/'))).toHaveLength(38); // 37 + /v2/keys/{kid}
      expect((await fetch(`${running.url}/ready`)).status).toBe(200);
    } finally {
      await running.close();
    }
  });

  it(
    'keeps every record and lifecycle state when the service process restarts on the same DATA_DIR',
    async ({ signal }) => {
      const env = { DATA_DIR: join(dataDir, 'process'), LOG_LEVEL: 'info', RECORDS_WRITE_POLICY: 'open' };
      const agentId = 'agent:process-restart-01';
      const cert = withFields(example('commissioning_certificate'), { agent_id: agentId });
      const post = (url: string, path: string, body: unknown) =>
        fetch(`${url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });

      const first = await startService(env, signal);
      try {
        const created = await post(first.url, '/v2/lifecycle/commission', cert);
        expect(created.status, await created.clone().text()).toBe(201);
        expect((await post(first.url, '/v2/dispute/record', example('dispute_record'))).status).toBe(201);
        const moved = await post(first.url, '/v2/lifecycle/transition', {
          agent_id: agentId,
          to_state: 'active',
        });
        expect(moved.status).toBe(200);
      } finally {
        expect(await first.stop()).toBe(0); // a graceful stop: every answered write is on disk
      }

      const second = await startService(env, signal);
      try {
        const commission = await fetch(`${second.url}/v2/lifecycle/commission/${agentId}`);
        expect(await commission.json()).toMatchObject({ record: cert, state: 'active' });
        const dispute = await fetch(`${second.url}/v2/dispute/record/dispute:ledger-lock-0042`);
        expect(dispute.status).toBe(200);
      } finally {
        expect(await second.stop()).toBe(0);
      }
    },
    RESTART_TEST_TIMEOUT_MS,
  );

  it('P210: waits for the ready line with no clock of its own, and ends with the test: the child is killed', async () => {
    // A boot held back (a module loaded before main.ts sleeps) stands for a loaded host: the wait outlasts it as
    // long as the test runs, and when the test's time runs out (here aborted after 1 s) it fails with the output.
    const slowBoot = `--import=data:text/javascript,${encodeURIComponent(
      'console.log("booting slowly"); await new Promise((r) => setTimeout(r, 60_000));',
    )}`;
    const timeUp = new AbortController();
    setTimeout(() => timeUp.abort(), 1000);
    const started = Date.now();
    await expect(
      startService({ DATA_DIR: join(dataDir, 'slow') }, timeUp.signal, [slowBoot]),
    ).rejects.toThrow(/time ran out before the service listened:\n[\s\S]*booting slowly/);
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
