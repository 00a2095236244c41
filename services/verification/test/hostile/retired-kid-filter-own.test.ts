// P469, P471: the filter of retired kids (P410) on one verification service over HTTP, its records mounted on a real
// store of each dialect, the periodic refresh set to an hour so that it hides nothing.
// - Own retirement (P469): a bundle signed by a key this very service has just retired, sent the moment the
//   retiring bundle's answer arrives, is warned about.
// - A store that cannot be read at start (P471): the service is not ready, and it does not verify bundles signed by
//   a retired key in silence meanwhile; once the store answers, it fills the filter and becomes ready.
import { createNativeBackend, generateBundleKeys } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { describe, expect, it } from 'vitest';
import type { Json } from '../../src/records/test-support.ts';
import { metricValue } from '../../src/test-support.ts';
import { agentBundles, agentIdOf, retiredWarningsAt, sharedStoreServices } from './retired-kid-services.ts';

const backend = createNativeBackend();

describe.each(dialectsUnderTest())('the filter of retired kids on one service, %s', (dialect) => {
  const services = sharedStoreServices(dialect, 'retired-kid-own');
  /** A service on the shared store, its periodic refresh an hour off; `beforeStart` may patch its real store. */
  const startService = async (beforeStart?: Parameters<typeof services.start>[1]) => ({
    app: await services.start({ RETIRED_KEY_REFRESH_SECONDS: '3600' }, beforeStart),
  });
  const { bundleAt } = agentBundles();
  const verify = retiredWarningsAt;

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
