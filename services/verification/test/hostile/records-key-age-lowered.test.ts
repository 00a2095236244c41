// P230 over HTTP against the real verification service: an operator lowers MAX_KEY_AGE_DAYS (say, to cut off keys
// old enough to have leaked) and restarts the service on the same store. A key bound under the old, longer age is
// one /verify now refuses as a signer, so it must stop signing /v2 records at once, not when its binding is pruned.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BundleKeySet,
  createNativeBackend,
  generateBundleKeys,
  PROFILES,
  signRecord,
} from '@proto/core';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecordsConfig, mountRecords } from '../../src/records/plugin.ts';
import { example, type Json, withFields } from '../../src/records/test-support.ts';
import { keyOnceItAnswers, type RunningApp, startApp } from '../../src/test-support.ts';
import { bundleListing, storeEnvOf } from './verifier-with-records.ts';

const backend = createNativeBackend();
const DAY = 86_400_000;

describe.each(dialectsUnderTest())('a lowered maximum key age on %s', (dialect) => {
  let target: StoreTarget;
  let dataDir: string;
  let running: RunningApp | undefined;

  /** The service with its records on this test's store, under `maxKeyAgeDays`. */
  const start = async (maxKeyAgeDays: number): Promise<string> => {
    await running?.close();
    const env = { ...storeEnvOf(target, dataDir), MAX_KEY_AGE_DAYS: String(maxKeyAgeDays) };
    const mounted = await mountRecords(loadRecordsConfig(env));
    running = await startApp({ ...env, VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0' }, [mounted]);
    return running.url;
  };
  const post = async (url: string, path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Json };
  };
  const keyStatus = async (url: string, kid: string) => {
    const res = await fetch(`${url}/v2/keys/${kid}`);
    await res.arrayBuffer();
    return res.status;
  };

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'v2-key-age-lowered');
    dataDir = await mkdtemp(join(tmpdir(), 'proto-key-age-lowered-'));
  });
  afterAll(async () => {
    await running?.close();
    await target?.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a key bound under a longer age signs no record once the age is lowered below its own; a young one does', async () => {
    const old = generateBundleKeys(backend, { pq: false });
    const young = generateBundleKeys(backend, { pq: false });
    const now = Date.now();
    const built = bundleListing([
      { keys: old, createdAt: new Date(now - 40 * DAY).toISOString() },
      { keys: young, createdAt: new Date(now - DAY).toISOString() },
    ]);
    const bundle = built.signed_bundle['bundle'] as Json;
    const agentId = ((bundle['agent_passport'] as Json)['payload'] as Json)['agent_id'] as string;
    const humanId = ((bundle['responsible_principal_record'] as Json)['payload'] as Json)[
      'human_id'
    ] as string;
    const commission = (keys: BundleKeySet) =>
      signRecord(
        backend,
        PROFILES.proto,
        'commissioning_certificate',
        withFields(example('commissioning_certificate'), { agent_id: agentId, human_id: humanId }),
        { classical: keys.classical },
      );

    // Under a 60-day age the 40-day-old key is one /verify accepts, and the directory binds it.
    const before = await start(60);
    const verdict = await post(before, '/verify', { signed_bundle: built.signed_bundle });
    expect(verdict.json['verified'], JSON.stringify(verdict.json)).toBe(true);
    const bound = await keyOnceItAnswers(before, old.classical.kid, 200);
    await bound.arrayBuffer();
    expect(bound.status).toBe(200);

    // The operator lowers the age to 30 days and restarts on the same store.
    const after = await start(30);
    expect(await keyStatus(after, old.classical.kid)).toBe(404);
    const byOld = await post(after, '/v2/lifecycle/commission', commission(old));
    expect(byOld.status, JSON.stringify(byOld.json)).toBe(403);
    // Control: the young key bound beside it still signs.
    expect(await keyStatus(after, young.classical.kid)).toBe(200);
    const byYoung = await post(after, '/v2/lifecycle/commission', commission(young));
    expect(byYoung.status, JSON.stringify(byYoung.json)).toBe(201);
    expect((byYoung.json['signature'] as Json)['status']).toBe('verified');
  });
});
