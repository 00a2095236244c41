// The log's alerting metrics over GET /metrics: checkpoint age and tree size, and a failing checkpointer counted
// (it used to only log). Issue 16 item 3; the CheckpointStale/CheckpointSigningFailing rules read these.
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestLog, bundleHash, OPERATOR_AUTH, tempDataDir } from './test-support.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(): Promise<FastifyInstance> {
  const data = await tempDataDir('tlog-metrics');
  cleanups.push(data.remove);
  const app = await buildTestLog(data.dir, { CHECKPOINT_INTERVAL_MS: '60000' });
  cleanups.push(() => app.close());
  await app.ready();
  return app;
}

function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

async function scrape(app: FastifyInstance): Promise<string> {
  return (await app.inject({ method: 'GET', url: '/metrics' })).body;
}

describe('transparency-log metrics', () => {
  it('exports the tree size and the age of the newest checkpoint', async () => {
    const app = await start();
    for (let i = 0; i < 3; i++)
      await app.inject({
        method: 'POST',
        url: '/add',
        payload: { bundle_hash: bundleHash(i, 'metrics') },
        headers: OPERATOR_AUTH,
      });
    await app.transparencyLog.checkpointer.tick();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const text = await scrape(app);
    expect(sample(text, 'proto_tlog_tree_size')).toBe(3);
    expect(sample(text, 'proto_tlog_signed_tree_size')).toBe(3);
    expect(sample(text, 'proto_tlog_checkpoint_age_seconds')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'proto_tlog_checkpoint_age_seconds')).toBeLessThan(30);
    expect(sample(text, 'proto_tlog_checkpoint_failures_total')).toBe(0);
  });

  it('counts a failed checkpoint round', async () => {
    const app = await start();
    // The store goes away under the checkpointer: the round fails for real.
    await app.transparencyLog.store.close();
    await expect(app.transparencyLog.checkpointer.tick()).rejects.toThrow();
    expect(sample(await scrape(app), 'proto_tlog_checkpoint_failures_total')).toBe(1);
  });
});
