// P501: two answers for the same stranger's passport, the second arriving while the first is still being applied to
// the key directory. The feeder used to answer the second at once ("applied lately"), before the store had said that
// the passport was foreign to its agent, so one of the two answers carried no warning. The store here is real
// (SQLite and PostgreSQL); its application is held back a little so that the two overlap.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { borrowedRprBundle } from '@proto/core/testing';
import type { Store } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadVerificationConfig } from '../../src/config.ts';
import { mountRecords } from '../../src/records/plugin.ts';
import type { Json } from '../../src/records/test-support.ts';
import { type RunningApp, startApp } from '../../src/test-support.ts';
import { storeEnvOf } from './verifier-with-records.ts';

/** Well under the feeder's APPLY_WAIT_MS (1 s), so both answers may wait for it. */
const HELD_MS = 400;

describe.each(dialectsUnderTest())('P501: the same foreign passport twice at once, %s', (dialect) => {
  let target: StoreTarget;
  let dataDir: string;
  let app: RunningApp;
  const fixture = borrowedRprBundle();

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'foreign-concurrent');
    dataDir = await mkdtemp(join(tmpdir(), 'proto-foreign-concurrent-'));
    const env = { ...storeEnvOf(target, dataDir), VERIFICATION_CACHE_MAX_ENTRIES: '0' };
    const mounted = await mountRecords(loadVerificationConfig({ ...env, HOST: '127.0.0.1', PORT: '0' }));
    const store = mounted.options['store'] as Store;
    const real = store.keys.applyPassport.bind(store.keys);
    store.keys.applyPassport = async (passport) => {
      await new Promise((resolve) => setTimeout(resolve, HELD_MS));
      return real(passport);
    };
    app = await startApp({ ...env, VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0' }, [mounted]);
  });
  afterAll(async () => {
    await app?.close();
    await target?.cleanup();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  const verify = async (signed: Json): Promise<Json> => {
    const res = await fetch(`${app.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signed_bundle: signed }),
    });
    return (await res.json()) as Json;
  };

  it('both answers carry the warning', async () => {
    expect((await verify(fixture.victim.signed_bundle))['verified']).toBe(true);
    const answers = await Promise.all([verify(fixture.stranger), verify(fixture.stranger)]);
    for (const json of answers) {
      expect(json['verified'], JSON.stringify(json)).toBe(true);
      const warnings = ((json['warnings'] as string[] | undefined) ?? []).filter((w) =>
        w.includes('key directory binds'),
      );
      expect(warnings, JSON.stringify(json)).toHaveLength(1);
    }
  });
});
