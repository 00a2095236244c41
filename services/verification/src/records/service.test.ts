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

/** Runs main.ts on the pinned Node until it logs its address; `stop` sends SIGTERM and awaits exit. */
async function startService(env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN], {
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
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start:\n${output}`));
    }, 20_000);
    const read = (data: unknown) => {
      output += String(data);
      const found = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (found?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    void exit.then(() => reject(new Error(`service exited:\n${output}`)));
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      return exit;
    },
  };
}

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

  it('keeps every record and lifecycle state when the service process restarts on the same DATA_DIR', async () => {
    const env = { DATA_DIR: join(dataDir, 'process'), LOG_LEVEL: 'info', RECORDS_WRITE_POLICY: 'open' };
    const agentId = 'agent:process-restart-01';
    const cert = withFields(example('commissioning_certificate'), { agent_id: agentId });
    const post = (url: string, path: string, body: unknown) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    const first = await startService(env);
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

    const second = await startService(env);
    try {
      const commission = await fetch(`${second.url}/v2/lifecycle/commission/${agentId}`);
      expect(await commission.json()).toMatchObject({ record: cert, state: 'active' });
      const dispute = await fetch(`${second.url}/v2/dispute/record/dispute:ledger-lock-0042`);
      expect(dispute.status).toBe(200);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });
});
