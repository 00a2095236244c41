// P410 over HTTP: two verification services (replicas) on one store, the records mounted on each, P282's warning on
// by default. A retirement made through replica A is warned about by replica B after B's refresh of its filter of
// retired kids; a bundle signed by a live kid never reaches B's store for the look-up (B's real store, its
// `retiredBindings` counted in place), a retired kid's does.
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
import { keyOnceItAnswers, type RunningApp, startApp } from '../../src/test-support.ts';
import { storeEnvOf } from './verifier-with-records.ts';

const backend = createNativeBackend();
const MINUTE = 60_000;

interface Replica {
  readonly app: RunningApp;
  /** How many times this replica's store was asked for retired bindings (P282's look-up). */
  readonly lookups: () => number;
}

describe.each(dialectsUnderTest())('P410: retired kids across two replicas on %s', (dialect) => {
  let target: StoreTarget;
  let dataDir: string;
  const replicas: Replica[] = [];

  const startReplica = async (): Promise<Replica> => {
    const env = { ...storeEnvOf(target, dataDir), RETIRED_KEY_REFRESH_SECONDS: '1' };
    const mounted = await mountRecords(loadVerificationConfig({ ...env, HOST: '127.0.0.1', PORT: '0' }));
    // The replica's own real store, its retired-binding query counted where it stands.
    const store = mounted.options['store'] as Store;
    const real = store.keys.retiredBindings.bind(store.keys);
    let count = 0;
    store.keys.retiredBindings = (kids, subjects) => {
      count += 1;
      return real(kids, subjects);
    };
    const app = await startApp({ ...env, VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0' }, [mounted]);
    const replica = { app, lookups: () => count };
    replicas.push(replica);
    return replica;
  };

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'retired-kid-replicas');
    dataDir = await mkdtemp(join(tmpdir(), 'proto-retired-kid-replicas-'));
  });
  afterAll(async () => {
    for (const replica of replicas) await replica.app.close();
    await target?.cleanup();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  const agent = generateBundleKeys(backend);
  const rotated = generateBundleKeys(backend);
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
  const verify = async (replica: Replica, built: ReturnType<typeof buildSignedBundle>) => {
    const res = await fetch(`${replica.app.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signed_bundle: built.signed_bundle }),
    });
    const json = (await res.json()) as Json;
    expect(json['verified'], JSON.stringify(json)).toBe(true);
    return ((json['warnings'] as string[] | undefined) ?? []).filter((w) => w.includes('retired'));
  };
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
    const id = (((first.signed_bundle['bundle'] as Json)['agent_passport'] as Json)['payload'] as Json)[
      'agent_id'
    ] as string;
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
