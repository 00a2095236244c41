// Anchoring under steady load on SQLite and PostgreSQL, sinking into the real transparency log in-process:
// receipts get confirmed while the load runs, and intake above what can be sent is pushed back (503, E702). Issue 16 item 1.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { waitFor } from '@proto/testing';
import { buildTransparencyLog, loadTransparencyLogConfig } from '@proto/transparency-log';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getReceipt, hashOf, OPERATOR, postAnchor, testApp } from './testing/app.ts';

const LOG_TOKEN = 'log-operator-token-0123456789';
const CHAIN = 'transparency-log';
const LOAD_MS = Number(process.env['ANCHOR_LOAD_MS'] ?? 10000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let log: FastifyInstance;
let logUrl: string;

beforeAll(async () => {
  log = await buildTransparencyLog({
    config: loadTransparencyLogConfig({
      LOG_LEVEL: 'silent',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'anchor-load-tlog-')),
      OPERATOR_TOKEN: LOG_TOKEN,
      CHECKPOINT_INTERVAL_MS: '200',
      ADD_RATE_LIMIT_PER_MINUTE: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
    }),
    logger: false,
  });
  logUrl = await log.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await log?.close();
});

describe.each(dialectsUnderTest())('anchoring under steady load (%s)', (dialect) => {
  let target: StoreTarget;
  const apps: FastifyInstance[] = [];

  beforeAll(async () => {
    target = await createStoreTarget(dialect, `anchor-load-${dialect}`);
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await target?.cleanup();
  });

  async function start(env: Record<string, string>, startWorker: boolean) {
    const store = await target.open(target.fresh('load'));
    const app = await testApp(
      {
        TL_URL: logUrl,
        TL_TOKEN: LOG_TOKEN,
        ANCHOR_POLL_INTERVAL_MS: '200',
        LOG_LEVEL: process.env['ANCHOR_TEST_LOG'] ?? 'silent',
        ...env,
      },
      store,
      { startWorker },
    );
    apps.push(app);
    return app;
  }

  /** Drives POST /anchor over a socket at `perSecond` (or flat out with `clients` when 0) for `ms`. */
  async function drive(app: FastifyInstance, options: { perSecond: number; clients: number; ms: number }) {
    // Over a socket like real clients (inject on SQLite never yields to the event loop, starving the sender).
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const result = {
      posted: [] as { hash: string; at: number }[],
      refused: [] as { retryAfter: number; code: string }[],
      confirmed: new Set<string>(),
      maxOldestPendingMs: 0,
      oldestPendingAtEndMs: 0,
      seconds: 0,
    };
    const t0 = Date.now();
    const until = t0 + options.ms;
    let n = 0;
    const post = async () => {
      const hash = hashOf(`load ${dialect} ${t0} ${n++}`);
      const res = await fetch(`${url}/anchor`, {
        method: 'POST',
        headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
        body: JSON.stringify({ bundle_hash: hash, chain: CHAIN }),
      });
      const body = (await res.json()) as { error?: { code: string }; anchor_receipt?: { status?: string } };
      // 200 is a receipt already confirmed when the answer was built: on a busy machine the worker can close
      // and write the batch between the enqueue and the receipt's read (routes.ts), which is still a take.
      expect([200, 202, 503]).toContain(res.status);
      if (res.status === 200) expect(body.anchor_receipt?.status).toBe('confirmed');
      if (res.status !== 503) {
        result.posted.push({ hash, at: Date.now() });
        if (res.status === 200) result.confirmed.add(hash);
      } else {
        result.refused.push({
          retryAfter: Number(res.headers.get('retry-after')),
          code: body.error?.code ?? '',
        });
        await sleep(200);
      }
    };
    const client = async (c: number) => {
      for (let i = 0; Date.now() < until; i++) {
        if (options.perSecond > 0) {
          // Paced: request i of this client is due at t0 + i * clients / perSecond.
          const due = t0 + ((i * options.clients + c) * 1000) / options.perSecond;
          if (due > Date.now()) await sleep(due - Date.now());
          if (Date.now() >= until) return;
        }
        await post();
      }
    };
    const oldestPendingMs = async () => {
      const oldest = await app.anchorStore.anchor.oldestPending(CHAIN);
      return oldest === undefined ? 0 : Date.now() - Date.parse(oldest);
    };
    const probe = async () => {
      while (Date.now() < until) {
        await sleep(250);
        // The earliest requests not yet seen confirmed: they must reach the log while the load goes on.
        const waiting = result.posted.filter((p) => !result.confirmed.has(p.hash)).slice(0, 5);
        for (const p of waiting) {
          if ((await getReceipt(app, p.hash))['status'] === 'confirmed') result.confirmed.add(p.hash);
        }
        result.maxOldestPendingMs = Math.max(result.maxOldestPendingMs, await oldestPendingMs());
      }
    };
    await Promise.all([...Array.from({ length: options.clients }, (_, c) => client(c)), probe()]);
    result.oldestPendingAtEndMs = await oldestPendingMs();
    result.seconds = (Date.now() - t0) / 1000;
    const open = (await app.anchorStore.anchor.openCounts()).reduce((sum, r) => sum + r.count, 0);
    console.info(
      `[anchor load ${dialect}] ${options.perSecond > 0 ? `${options.perSecond}/s paced` : `${options.clients} clients flat out`}: ` +
        `accepted ${result.posted.length} (${(result.posted.length / result.seconds).toFixed(0)}/s), refused ${result.refused.length}, ` +
        `open at the end ${open}, oldest pending max ${(result.maxOldestPendingMs / 1000).toFixed(2)} s, ` +
        `at the end ${(result.oldestPendingAtEndMs / 1000).toFixed(2)} s`,
    );
    return result;
  }

  it("confirms receipts during a steady load below the log's rate, the oldest pending anchor staying young", async () => {
    const app = await start({}, true);
    const run = await drive(app, { perSecond: 40, clients: 4, ms: LOAD_MS });
    expect(run.posted.length).toBeGreaterThan((40 * LOAD_MS) / 1000 / 2);
    expect(run.refused).toHaveLength(0);
    expect(run.confirmed.size).toBeGreaterThan(0);
    // Bounded by the batch interval (0 for the log) plus one send, whatever the length of the load.
    // Half the load is generous for a shared 2-core CI box; before issue 16 it grew with the load (on
    // PostgreSQL nearly as old as the load itself).
    expect(run.maxOldestPendingMs).toBeLessThan(LOAD_MS / 2);
    expect(run.oldestPendingAtEndMs).toBeLessThan(LOAD_MS / 2);
  });

  it('pushes back with 503 + Retry-After + E702 when intake exceeds sending, and keeps confirming', async () => {
    const app = await start({ ANCHOR_MAX_BACKLOG: '50' }, true);
    const run = await drive(app, { perSecond: 0, clients: 16, ms: LOAD_MS });
    expect(run.refused.length).toBeGreaterThan(0);
    for (const r of run.refused) {
      expect(r.code).toMatch(/-E702$/);
      expect(r.retryAfter).toBeGreaterThanOrEqual(1);
    }
    expect(run.confirmed.size).toBeGreaterThan(0);
    // Once the backlog drains, new requests are taken again.
    await waitFor(
      async () => (await app.anchorStore.anchor.backlog(CHAIN)) === 0,
      30_000,
      'the backlog to drain',
      100,
    );
    const late = await postAnchor(app, hashOf(`after the load ${dialect}`), CHAIN);
    expect(late.statusCode).toBe(202);
  });

  it('refuses a new hash over the backlog but still answers one already queued', async () => {
    // The log is unreachable, so nothing leaves the backlog.
    const app = await start({ ANCHOR_MAX_BACKLOG: '5', TL_URL: 'http://127.0.0.1:9' }, false);
    for (let i = 0; i < 5; i++) {
      expect((await postAnchor(app, hashOf(`backlog ${dialect} ${i}`), CHAIN)).statusCode).toBe(202);
    }
    const refused = await postAnchor(app, hashOf(`backlog ${dialect} over`), CHAIN);
    expect(refused.statusCode).toBe(503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const body = refused.json() as { error: { code: string; retryable: boolean } };
    expect(body.error.code).toMatch(/-E702$/);
    expect(body.error.retryable).toBe(true);
    expect(await app.anchorStore.anchor.latest(hashOf(`backlog ${dialect} over`))).toBeUndefined();
    expect((await postAnchor(app, hashOf(`backlog ${dialect} 3`), CHAIN)).statusCode).toBe(202);
  });

  it('never closes a second batch while a closed one waits unsent (the sink is down)', async () => {
    const app = await start({ BATCH_MAX: '10', TL_URL: 'http://127.0.0.1:9' }, false);
    for (let i = 0; i < 35; i++) await app.anchorStore.anchor.enqueue(CHAIN, hashOf(`fair ${dialect} ${i}`));
    for (let pass = 0; pass < 3; pass++) await app.anchorWorker.run(CHAIN, true);
    const repo = app.anchorStore.anchor;
    const unsent = await repo.batches(CHAIN, ['created', 'sending']);
    // One write in flight (its intent stored) and at most one closed behind it; the rest stays queued.
    expect(unsent.filter((b) => b.state === 'sending')).toHaveLength(1);
    expect(unsent.filter((b) => b.state === 'created').length).toBeLessThanOrEqual(1);
    const open = await repo.openCounts();
    expect(open.find((r) => r.state === 'queued')?.count).toBeGreaterThanOrEqual(15);
  });
});
