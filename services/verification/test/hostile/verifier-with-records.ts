// The real verification service with the /v2 records mounted on a store of each dialect under test, as the
// key-directory attacks replay against it (a thief's far-future passport, a dropped key, a directory flood): POST
// /verify feeds the key directory, GET /v2/keys/<kid> shows what it holds.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuiltBundle } from '@proto/core';
import type { Store, StoreDialect } from '@proto/store';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { loadRecordsConfig, mountRecords } from '../../src/records/plugin.ts';
import type { Json } from '../../src/records/test-support.ts';
import { keyOnceItAnswers, type RunningApp, startApp } from '../../src/test-support.ts';

/** The service's store variables for `target`: its SQLite file under DATA_DIR, or its PostgreSQL schema. */
export function storeEnvOf(target: StoreTarget, dataDir: string): Record<string, string> {
  return target.options.pgSchema === undefined
    ? { DATA_DIR: target.options.dataDir as string }
    : {
        DATA_DIR: dataDir,
        DATABASE_URL: target.options.databaseUrl as string,
        DATABASE_SCHEMA: target.options.pgSchema,
      };
}

export interface VerifierWithRecords {
  readonly url: string;
  /** POST `body` as JSON to `path` (with `headers`, e.g. the operator token); the status and the JSON answer. */
  post(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: Json }>;
  /** GET /v2/keys/<kid>'s status now. */
  keyStatus(kid: string): Promise<number>;
  /** GET /v2/keys/<kid>'s status once it is `status` (the directory is written after the answer), or at timeout. */
  keyStatusOnce(kid: string, status: number, timeoutMs?: number): Promise<number>;
  /** Closes the service and removes its store. */
  close(): Promise<void>;
}

/**
 * Starts the service on a fresh store of `dialect` named after `label`; `env` is read by both service and records.
 * `seed` writes into the service's store before it starts (the store as an earlier service left it, e.g. an agent
 * commissioned years ago, which P207's floor needs for moves dated then).
 */
export async function startVerifierWithRecords(
  dialect: StoreDialect,
  label: string,
  env: Record<string, string> = {},
  seed?: (store: Store) => Promise<void>,
): Promise<VerifierWithRecords> {
  const target = await createStoreTarget(dialect, label);
  const dataDir = await mkdtemp(join(tmpdir(), `proto-${label}-`));
  let running: RunningApp | undefined;
  const close = async () => {
    await running?.close();
    await target.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    if (seed !== undefined) {
      const store = await target.open({ name: 'verification' }); // the service's SQLite file; PostgreSQL: its schema
      await seed(store);
      await store.close();
    }
    const serviceEnv = { ...storeEnvOf(target, dataDir), ...env };
    const mounted = await mountRecords(loadRecordsConfig(serviceEnv));
    running = await startApp({ ...serviceEnv, VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0' }, [mounted]);
  } catch (error) {
    await close();
    throw error;
  }
  const url = running.url;
  return {
    url,
    post: async (path, body, headers = {}) => {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Json };
    },
    keyStatus: async (kid) => {
      const res = await fetch(`${url}/v2/keys/${kid}`);
      await res.arrayBuffer();
      return res.status;
    },
    keyStatusOnce: async (kid, status, timeoutMs) => {
      const res = await keyOnceItAnswers(url, kid, status, timeoutMs);
      await res.arrayBuffer();
      return res.status;
    },
    close,
  };
}

/** A party of a built bundle: its agent and human ids and the keys of its agent and of its principal. */
export function partyOf(built: BuiltBundle) {
  const bundle = built.signed_bundle['bundle'] as Json;
  const keysOf = (set: BuiltBundle['keys']['agent']) => ({
    classical: set.classical,
    ...(set.pq === undefined ? {} : { pq: set.pq }),
  });
  return {
    built,
    agentId: ((bundle['agent_passport'] as Json)['payload'] as Json)['agent_id'] as string,
    humanId: ((bundle['responsible_principal_record'] as Json)['payload'] as Json)['human_id'] as string,
    agentKeys: keysOf(built.keys.agent),
    principalKeys: keysOf(built.keys.principal),
  };
}
