// P469, P471: the filter of retired kids (P410) on one verification service over HTTP, its records mounted on a real
// store of each dialect, the periodic refresh set to an hour so that it hides nothing.
// - Own retirement (P469): a bundle signed by a key this very service has just retired, sent the moment the
//   retiring bundle's answer arrives, is warned about.
// - A store that cannot be read at start (P471): the service is not ready, and it does not verify bundles signed by
//   a retired key in silence meanwhile; once the store answers, it fills the filter and becomes ready.
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
import type { Store } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadVerificationConfig } from '../../src/config.ts';
import { mountRecords } from '../../src/records/plugin.ts';
import type { Json } from '../../src/records/test-support.ts';
import { metricValue, type RunningApp, startApp } from '../../src/test-support.ts';
import { storeEnvOf } from './verifier-with-records.ts';

const backend = createNativeBackend();
const MINUTE = 60_000;

interface Service {
  readonly app: RunningApp;
  readonly store: Store;
}

describe.each(dialectsUnderTest())('the filter of retired kids on one service, %s', (dialect) => {
  let target: StoreTarget;
  let dataDir: string;
  const services: Service[] = [];

  /** A service on the shared store; `beforeStart` may patch its real store before the app reads it. */
  const startService = async (beforeStart?: (store: Store) => void): Promise<Service> => {
    const env = { ...storeEnvOf(target, dataDir), RETIRED_KEY_REFRESH_SECONDS: '3600' };
    const mounted = await mountRecords(loadVerificationConfig({ ...env, HOST: '127.0.0.1', PORT: '0' }));
    const store = mounted.options['store'] as Store;
    beforeStart?.(store);
    const app = await startApp({ ...env, VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0' }, [mounted]);
    const service = { app, store };
    services.push(service);
    return service;
  };

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'retired-kid-own');
    dataDir = await mkdtemp(join(tmpdir(), 'proto-retired-kid-own-'));
  });
  afterAll(async () => {
    for (const service of services) await service.app.close();
    await target?.cleanup();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  const principal = generateBundleKeys(backend);
  const start = Date.now() - 30 * MINUTE;
  const entries = (set: BundleKeySet): Json[] =>
    [set.classical, ...(set.pq === undefined ? [] : [set.pq])].map((pair) =>
      keyEntry(pair, new Date(start).toISOString(), null),
    );
  const bundleAt = (minutes: number, signer: BundleKeySet, listed: BundleKeySet[], agentId?: string) =>
    buildSignedBundle({
      keys: { agent: signer, principal },
      now: new Date(start + minutes * MINUTE),
      hooks: {
        payloads: (payloads) => {
          const passport = payloads.agent_passport as Json;
          passport['keys'] = listed.flatMap(entries);
          if (agentId !== undefined) {
            passport['agent_id'] = agentId;
            (payloads.intent as Json)['agent_id'] = agentId;
          }
        },
      },
    });
  const agentIdOf = (built: ReturnType<typeof buildSignedBundle>) =>
    (((built.signed_bundle['bundle'] as Json)['agent_passport'] as Json)['payload'] as Json)[
      'agent_id'
    ] as string;
  const verify = async (url: string, built: ReturnType<typeof buildSignedBundle>) => {
    const res = await fetch(`${url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signed_bundle: built.signed_bundle }),
    });
    const json = (await res.json()) as Json;
    expect(json['verified'], JSON.stringify(json)).toBe(true);
    return ((json['warnings'] as string[] | undefined) ?? []).filter((w) => w.includes('retired'));
  };

  it('P469: warns about a key this service retired, for a bundle sent as the retiring answer arrives', async () => {
    const { app } = await startService();
    const agent = generateBundleKeys(backend);
    const rotated = generateBundleKeys(backend);
    const first = bundleAt(0, agent, [agent, rotated]);
    const id = agentIdOf(first);
    // The first passport binds both key sets before anything is retired (its answer waits for nothing here).
    expect(await verify(app.url, first)).toEqual([]);
    const byRotated = bundleAt(5, rotated, [agent, rotated], id);
    // Wait until the binding is in: a fresh bundle by the second set verifies with no warning either way.
    for (let n = 0; n < 50; n++) {
      const res = await fetch(`${app.url}/v2/keys/${rotated.classical.kid}`);
      await res.arrayBuffer();
      if (res.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await verify(app.url, byRotated)).toEqual([]);

    // A newer passport drops the second set, and at once a fresh bundle signed by it.
    expect(await verify(app.url, bundleAt(10, agent, [agent]))).toEqual([]);
    const warnings = await verify(app.url, bundleAt(6, rotated, [agent, rotated], id));
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).toContain(rotated.classical.kid);
  });

  it('P471: not ready, and not silent about a retired key, while the filter cannot be filled', async () => {
    // A retirement already in the store, made through another service.
    const { app: writer } = await startService();
    const agent = generateBundleKeys(backend);
    const rotated = generateBundleKeys(backend);
    const first = bundleAt(0, agent, [agent, rotated]);
    const id = agentIdOf(first);
    expect(await verify(writer.url, first)).toEqual([]);
    expect(await verify(writer.url, bundleAt(10, agent, [agent]))).toEqual([]);
    for (let n = 0; n < 100; n++) {
      const res = await fetch(`${writer.url}/v2/keys/${rotated.classical.kid}`);
      await res.arrayBuffer();
      if (res.status === 404) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    // A second service whose store cannot page through retirements (as when the database is down at start),
    // while every other query works.
    let down = true;
    const { app } = await startService((store) => {
      const real = store.keys.retiredSince.bind(store.keys);
      store.keys.retiredSince = (after, limit) =>
        down ? Promise.reject(new Error('connection refused')) : real(after, limit);
    });
    const ready = await fetch(`${app.url}/ready`);
    const readyJson = (await ready.json()) as Json;
    expect(ready.status, JSON.stringify(readyJson)).toBe(503);
    expect(JSON.stringify(readyJson)).toContain('retired-kids');
    // Every bit set meanwhile, and said so (P470).
    expect(await metricValue(app.url, 'proto_retired_kid_filter_fill_ratio')).toBe(1);
    // Whoever reaches it anyway is told about the retired key (the exact look-up still works).
    const warnings = await verify(app.url, bundleAt(6, rotated, [agent, rotated], id));
    expect(warnings).toHaveLength(2);

    // The store answers again: the next readiness probe fills the filter, and the service is ready.
    down = false;
    const again = await fetch(`${app.url}/ready`);
    expect(again.status, JSON.stringify(await again.json())).toBe(200);
    const fill = await metricValue(app.url, 'proto_retired_kid_filter_fill_ratio');
    expect(fill).toBeGreaterThan(0);
    expect(fill).toBeLessThan(0.001);
    expect(await verify(app.url, bundleAt(7, rotated, [agent, rotated], id))).toHaveLength(2);
    expect(await verify(app.url, bundleAt(11, agent, [agent], id))).toEqual([]);
  });
});
