// P173 over HTTP against the real verification service: a passport dated beyond the clock skew in the future
// verifies, but the key directory does not take it as the agent's newest. Otherwise whoever holds a key (a thief
// included) could pin a year-2999 passport, and no later rotation by the real owner would ever count.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BundleKeySet,
  buildSignedBundle,
  createNativeBackend,
  generateBundleKeys,
  keyEntry,
} from '@proto/core';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecordsConfig, mountRecords } from '../../src/records/plugin.ts';
import type { Json } from '../../src/records/test-support.ts';
import { keyOnceItAnswers, type RunningApp, startApp } from '../../src/test-support.ts';

const backend = createNativeBackend();
const MINUTE = 60_000;

describe.each(dialectsUnderTest())('a far-future passport through POST /verify on %s', (dialect) => {
  let target: StoreTarget;
  let dataDir: string;
  let running: RunningApp;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'v2-future-passport');
    dataDir = await mkdtemp(join(tmpdir(), 'proto-records-future-'));
    const env: Record<string, string> =
      target.options.pgSchema === undefined
        ? { DATA_DIR: target.options.dataDir as string }
        : {
            DATA_DIR: dataDir,
            DATABASE_URL: target.options.databaseUrl as string,
            DATABASE_SCHEMA: target.options.pgSchema,
          };
    const mounted = await mountRecords(loadRecordsConfig(env));
    running = await startApp({ ...env, VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0' }, [mounted]);
  });
  afterAll(async () => {
    await running?.close();
    await target?.cleanup();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  const keyStatus = async (kid: string) => {
    const res = await fetch(`${running.url}/v2/keys/${kid}`);
    await res.arrayBuffer();
    return res.status;
  };
  const until = async (kid: string, status: number) => {
    const res = await keyOnceItAnswers(running.url, kid, status);
    await res.arrayBuffer();
    return res.status;
  };

  const agent = generateBundleKeys(backend);
  const principal = generateBundleKeys(backend);
  const spare = generateBundleKeys(backend, { pq: false });
  const thiefs = generateBundleKeys(backend, { pq: false });
  const successor = generateBundleKeys(backend, { pq: false });
  const start = Date.now() - 30 * MINUTE;

  /** The agent's bundle made at `now`, its passport dated `createdAt` and also listing `extra` keys. */
  const bundle = (now: Date, createdAt: string, extra: { keys: BundleKeySet; status: string }[]) =>
    buildSignedBundle({
      keys: { agent, principal },
      now,
      hooks: {
        payloads: (payloads) => {
          const passport = payloads.agent_passport as Json;
          passport['created_at'] = createdAt;
          for (const { keys, status } of extra) {
            (passport['keys'] as Json[]).push({
              ...keyEntry(keys.classical, now.toISOString(), null),
              status,
            });
          }
        },
      },
    });
  const verify = async (built: ReturnType<typeof buildSignedBundle>) => {
    const res = await fetch(`${running.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signed_bundle: built.signed_bundle }),
    });
    const json = (await res.json()) as Json;
    expect(json['verified'], JSON.stringify(json)).toBe(true);
  };

  it('a passport dated in 2999, signed with a stolen key, neither rotates nor blocks the owner’s rotation', async () => {
    const t0 = new Date(start);
    await verify(bundle(t0, t0.toISOString(), [{ keys: spare, status: 'active' }]));
    expect(await until(spare.classical.kid, 200)).toBe(200);

    // The thief holds the agent's key: a passport dated 2999 listing the thief's key and dropping the spare.
    const t1 = new Date(start + 5 * MINUTE);
    await verify(bundle(t1, '2999-01-01T00:00:00.000Z', [{ keys: thiefs, status: 'active' }]));
    await new Promise((r) => setTimeout(r, 500));
    expect(await keyStatus(thiefs.classical.kid)).toBe(404);
    expect(await keyStatus(spare.classical.kid)).toBe(200);

    // The owner's rotation dated now still counts: the successor binds, the spare is dropped.
    const t2 = new Date(start + 10 * MINUTE);
    await verify(bundle(t2, t2.toISOString(), [{ keys: successor, status: 'active' }]));
    expect(await until(successor.classical.kid, 200)).toBe(200);
    expect(await until(spare.classical.kid, 404)).toBe(404);
    expect(await keyStatus(thiefs.classical.kid)).toBe(404);
  });

  it('a passport a few seconds ahead (within the clock skew) still rotates', async () => {
    const other = generateBundleKeys(backend);
    const later = generateBundleKeys(backend, { pq: false });
    const now = new Date();
    const own = (createdAt: string, extra: BundleKeySet[]) =>
      buildSignedBundle({
        keys: { agent: other, principal },
        now,
        hooks: {
          payloads: (payloads) => {
            const passport = payloads.agent_passport as Json;
            passport['created_at'] = createdAt;
            for (const keys of extra) {
              (passport['keys'] as Json[]).push({
                ...keyEntry(keys.classical, now.toISOString(), null),
                status: 'active',
              });
            }
          },
        },
      });
    await verify(own(new Date(now.getTime() - MINUTE).toISOString(), []));
    expect(await until(other.classical.kid, 200)).toBe(200);
    await verify(own(new Date(now.getTime() + 30_000).toISOString(), [later]));
    expect(await until(later.classical.kid, 200)).toBe(200);
  });
});
