// P410 over HTTP: two verification services (replicas) on one store, the records mounted on each, P282's warning on
// by default. A retirement made through replica A is warned about by replica B after B's refresh of its filter of
// retired kids; a bundle signed by a live kid never reaches B's store for the look-up (B's real store, its
// `retiredBindings` counted in place), a retired kid's does.
import { createNativeBackend, generateBundleKeys } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { describe, expect, it } from 'vitest';
import { keyOnceItAnswers, type RunningApp } from '../../src/test-support.ts';
import { agentBundles, agentIdOf, retiredWarningsAt, sharedStoreServices } from './retired-kid-services.ts';

const backend = createNativeBackend();

interface Replica {
  readonly app: RunningApp;
  /** How many times this replica's store was asked for retired bindings (P282's look-up). */
  readonly lookups: () => number;
}

describe.each(dialectsUnderTest())('P410: retired kids across two replicas on %s', (dialect) => {
  const services = sharedStoreServices(dialect, 'retired-kid-replicas');

  const startReplica = async (): Promise<Replica> => {
    let count = 0;
    const app = await services.start({ RETIRED_KEY_REFRESH_SECONDS: '1' }, (store) => {
      // The replica's own real store, its retired-binding query counted where it stands.
      const real = store.keys.retiredBindings.bind(store.keys);
      store.keys.retiredBindings = (kids, subjects) => {
        count += 1;
        return real(kids, subjects);
      };
    });
    return { app, lookups: () => count };
  };

  const agent = generateBundleKeys(backend);
  const rotated = generateBundleKeys(backend);
  const { bundleAt } = agentBundles();
  const verify = (replica: Replica, built: ReturnType<typeof bundleAt>) =>
    retiredWarningsAt(replica.app.url, built);
  const keyStatusOnce = async (replica: Replica, kid: string, status: number) => {
    const res = await keyOnceItAnswers(replica.app.url, kid, status);
    await res.arrayBuffer();
    return res.status;
  };

  it('B warns about A’s retirement after its refresh; a live kid costs B no store query', async () => {
    const a = await startReplica();
    const b = await startReplica();

    // Through A: the agent's first passport binds both key sets to the agent.
    const first = bundleAt(0, agent, [agent, rotated]);
    const id = agentIdOf(first);
    expect(await verify(a, first)).toEqual([]);
    expect(await keyStatusOnce(a, rotated.classical.kid, 200)).toBe(200);

    // At B, bundles signed by live kids: verified, no warning, and B's store never asked for retired bindings.
    const byRotated = bundleAt(5, rotated, [agent, rotated], id);
    expect(await verify(b, byRotated)).toEqual([]);
    expect(await verify(b, bundleAt(7, agent, [agent, rotated], id))).toEqual([]);
    expect(b.lookups()).toBe(0);

    // Through A: a newer passport drops the second key set; the directory retires it.
    expect(await verify(a, bundleAt(10, agent, [agent]))).toEqual([]);
    expect(await keyStatusOnce(a, rotated.classical.kid, 404)).toBe(404);

    // B learns of it within its refresh (1 s here): a fresh bundle by the dropped key is warned about at B.
    const deadline = Date.now() + 10_000;
    let warnings: string[] = [];
    for (let n = 0; warnings.length === 0 && Date.now() < deadline; n += 1) {
      if (n > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      warnings = await verify(b, bundleAt(6 + n / 1000, rotated, [agent, rotated], id));
    }
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).toContain(rotated.classical.kid);
    expect(b.lookups()).toBeGreaterThan(0);

    // The agent's own live key still signs at B with no warning and no further store query.
    const before = b.lookups();
    expect(await verify(b, bundleAt(11, agent, [agent]))).toEqual([]);
    expect(b.lookups()).toBe(before);
  });
});
