// The log adapter against the real transparency-log service (started in-process, spoken to over HTTP only):
// append, receipts in SPEC.md's log shape, verified by proof and against the log's signed checkpoints. D18, D19.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyAnchorReceipt } from '@proto/clients';
import type { Store } from '@proto/store';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { waitFor } from '@proto/testing';
import { buildTransparencyLog, loadTransparencyLogConfig } from '@proto/transparency-log';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransparencyLogAdapter } from './adapters/transparency-log.ts';
import { getReceipt, hashOf, postAnchor, testApp } from './testing/app.ts';
import { batchTree } from './worker.ts';

const LOG_TOKEN = 'log-operator-token-0123456789';
let log: FastifyInstance;
let logUrl: string;
let target: StoreTarget;
let store: Store;
let app: FastifyInstance;

beforeAll(async () => {
  log = await buildTransparencyLog({
    config: loadTransparencyLogConfig({
      LOG_LEVEL: 'silent',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'anchor-tlog-')),
      OPERATOR_TOKEN: LOG_TOKEN,
      BATCH_WAIT_MS: '2',
      CHECKPOINT_INTERVAL_MS: '50',
      ADD_RATE_LIMIT_PER_MINUTE: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
    }),
    logger: false,
  });
  logUrl = await log.listen({ port: 0, host: '127.0.0.1' });
  target = await createStoreTarget('sqlite', 'anchor-tlog');
  store = await target.open();
  app = await testApp({ TL_URL: logUrl, TL_TOKEN: LOG_TOKEN }, store);
});

afterAll(async () => {
  await app?.close();
  await target?.cleanup();
  await log?.close();
});

describe('anchoring in the transparency-log service', () => {
  const hashes = Array.from({ length: 5 }, (_, i) => hashOf(`tlog ${i}`));

  it('appends each hash (with the bearer token) and returns confirmed log receipts', async () => {
    for (const h of hashes) expect((await postAnchor(app, h, 'transparency-log')).statusCode).toBe(202);
    await app.anchorWorker.run('transparency-log', true);
    const receipts = await Promise.all(hashes.map((h) => getReceipt(app, h)));
    expect(new Set(receipts.map((r) => r['log_index'])).size).toBe(5);
    for (const r of receipts) {
      expect(r).toMatchObject({ log_url: logUrl, status: 'confirmed', confirmations: 1 });
      expect(r['merkle_path']).toEqual(r['merkle_proof']);
    }
  });

  it("verifies by the log's proof endpoint and refuses another hash", async () => {
    for (const h of hashes) {
      expect(await verifyAnchorReceipt(await getReceipt(app, h), h, { logs: [logUrl] })).toMatchObject({
        status: 'pass',
      });
    }
    expect(
      await verifyAnchorReceipt(await getReceipt(app, hashes[0]!), hashes[1]!, { logs: [logUrl] }),
    ).toMatchObject({
      status: 'fail',
    });
  });

  it("verifies against the log's signed checkpoint with its verifier keys (Ed25519 + ML-DSA-65)", async () => {
    const keys = [...log.transparencyLog.keys.vkeys];
    expect(keys).toHaveLength(2);
    const receipt = await getReceipt(app, hashes[2]!);
    // Until the log has signed a checkpoint that covers the root.
    const check = await waitFor(
      async () => {
        const result = await verifyAnchorReceipt(receipt, hashes[2]!, { logs: [{ url: logUrl, keys }] });
        return result.status === 'pass' && result;
      },
      10_000,
      'the receipt to verify against the log',
      100,
    );
    expect(check.kind).toBe('log');
    const wrong = await verifyAnchorReceipt({ ...receipt, batch_root: 'cd'.repeat(32) }, hashes[2]!, {
      logs: [{ url: logUrl, keys }],
    });
    expect(wrong.status).toBe('fail');
  });
});

describe('a log batch recorded as sent but not as confirmed', () => {
  it('turns confirmed on the next pass (a crash or a lost database connection between the two writes)', async () => {
    // The state an earlier worker left when it died (or PostgreSQL dropped its connection) between marking a
    // batch sent and recording it confirmed, two writes then: the hash is in the log, the batch is sent, the
    // confirmation never recorded. The soak found receipts left `submitted` for good this way.
    const h = hashOf('sent, never recorded confirmed');
    const repo = store.anchor;
    // Queued straight in the store: a POST would wake the worker, which must not run before the "crash".
    await repo.enqueue('transparency-log', h);
    const batch = await repo.closeBatch('transparency-log', { max: 10, build: batchTree });
    expect(batch).toBeDefined();
    expect(await repo.acquireLease('transparency-log', app.anchorWorker.owner, 60_000)).toBe(true);
    expect(await repo.recordIntent(batch!.id, {}, app.anchorWorker.owner)).toBe(true);
    const items = await repo.batchItems(batch!.id);
    const adapter = new TransparencyLogAdapter({ url: logUrl, token: LOG_TOKEN });
    const sent = await adapter.broadcast(batch!, items);
    expect(sent.ok).toBe(true);
    if (!sent.ok) return;
    await repo.setItemDetails(sent.itemDetails ?? []);
    await repo.markSent(batch!.id);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'submitted' });

    await app.anchorWorker.run('transparency-log', true);
    const receipt = await getReceipt(app, h);
    expect(receipt).toMatchObject({ log_url: logUrl, status: 'confirmed', confirmations: 1 });
    expect(await verifyAnchorReceipt(receipt, h, { logs: [logUrl] })).toMatchObject({ status: 'pass' });
  });
});

describe("a log without OPERATOR_TOKEN: the anchor service reads the log's generated token (TL_TOKEN_FILE)", () => {
  it('anchors with the token the log generated into its DATA_DIR', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'anchor-tlog-generated-'));
    const generatedLog = await buildTransparencyLog({
      config: loadTransparencyLogConfig({
        LOG_LEVEL: 'silent',
        DATA_DIR: dataDir,
        BATCH_WAIT_MS: '2',
        MAX_EVENT_LOOP_DELAY_MS: '0',
      }),
      logger: false,
    });
    const url = await generatedLog.listen({ port: 0, host: '127.0.0.1' });
    const store = await createStoreTarget('sqlite', 'anchor-tlog-generated');
    const anchor = await testApp(
      { TL_URL: url, TL_TOKEN_FILE: join(dataDir, 'operator-token') },
      await store.open(),
    );
    try {
      const h = hashOf('generated token');
      expect((await postAnchor(anchor, h, 'transparency-log')).statusCode).toBe(202);
      await anchor.anchorWorker.run('transparency-log', true);
      expect(await getReceipt(anchor, h)).toMatchObject({ log_url: url, status: 'confirmed' });
    } finally {
      await anchor.close();
      await store.cleanup();
      await generatedLog.close();
    }
  });
});
