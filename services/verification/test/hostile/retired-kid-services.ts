// The set-up of the retired-kid tests over HTTP (P282, P410, P469, P471, P472): one agent's bundles over half an hour,
// each signed by one key set and listing some, and real verification services with their records mounted on one
// shared store of the dialect under test (replicas, or one service and the stores a test opens beside it).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BuiltBundle,
  type BundleKeySet,
  buildSignedBundle,
  createNativeBackend,
  generateBundleKeys,
  keyEntry,
} from '@proto/core';
import type { Store, StoreDialect } from '@proto/store';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadVerificationConfig } from '../../src/config.ts';
import { mountRecords } from '../../src/records/plugin.ts';
import type { Json } from '../../src/records/test-support.ts';
import { type RunningApp, startApp } from '../../src/test-support.ts';
import { storeEnvOf } from './verifier-with-records.ts';

export const MINUTE = 60_000;
const backend = createNativeBackend();

/**
 * Bundles of one agent from `start` (half an hour ago) on, its principal `principal`: `bundleAt(minutes, signer,
 * listed, agentId)` is signed by `signer` at `minutes` past start, its passport listing exactly `listed` (each key
 * created at start) and naming `agentId` where given (else the signer's own id).
 */
export function agentBundles(principal: BundleKeySet = generateBundleKeys(backend)) {
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
  return { start, bundleAt };
}

/** The agent id a built bundle's passport names. */
export const agentIdOf = (built: BuiltBundle) =>
  (((built.signed_bundle['bundle'] as Json)['agent_passport'] as Json)['payload'] as Json)[
    'agent_id'
  ] as string;

/** An answer's warnings about a retired key. */
export const retiredWarningsOf = (answer: Json) =>
  ((answer['warnings'] as string[] | undefined) ?? []).filter((w) => w.includes('retired'));

/** POSTs `built` to `url`/verify, expects it verified; its warnings about a retired key. */
export async function retiredWarningsAt(url: string, built: BuiltBundle): Promise<string[]> {
  const res = await fetch(`${url}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ signed_bundle: built.signed_bundle }),
  });
  const json = (await res.json()) as Json;
  expect(json['verified'], JSON.stringify(json)).toBe(true);
  return retiredWarningsOf(json);
}

export interface SharedStoreServices {
  /** The store every service shares (for a test to open beside them, as another replica would). */
  readonly target: StoreTarget;
  /**
   * A verification service on the shared store with `env` added; `beforeStart` may patch its real store (count or
   * fail a query where it stands) before the app reads it. Closed after the suite.
   */
  start(env: Record<string, string>, beforeStart?: (store: Store) => void): Promise<RunningApp>;
}

/** Registers the suite's hooks: a fresh store of `dialect` named `label` before it, and every service closed after. */
export function sharedStoreServices(dialect: StoreDialect, label: string): SharedStoreServices {
  let target: StoreTarget | undefined;
  let dataDir: string | undefined;
  const apps: RunningApp[] = [];
  beforeAll(async () => {
    target = await createStoreTarget(dialect, label);
    dataDir = await mkdtemp(join(tmpdir(), `proto-${label}-`));
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await target?.cleanup();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });
  const shared = () => {
    if (target === undefined || dataDir === undefined)
      throw new Error('the shared store starts in beforeAll');
    return { target, dataDir };
  };
  return {
    get target() {
      return shared().target;
    },
    start: async (added, beforeStart) => {
      const { target: store, dataDir: dir } = shared();
      const env = { ...storeEnvOf(store, dir), ...added };
      const mounted = await mountRecords(loadVerificationConfig({ ...env, HOST: '127.0.0.1', PORT: '0' }));
      beforeStart?.(mounted.options['store'] as Store);
      const app = await startApp({ ...env, VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0' }, [mounted]);
      apps.push(app);
      return app;
    },
  };
}
