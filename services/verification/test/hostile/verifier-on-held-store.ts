// The real verification service with its /v2 records on a real store of one dialect, which the test may hold back
// or rewire at the store layer before the service starts (the P501/P555 tests: an application of a passport slower
// than the feeder's wait; a feeder whose map of applied passports is small, so it is cleared at once).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store, StoreDialect } from '@proto/store';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import type { ExtraPlugin } from '../../src/app.ts';
import { loadVerificationConfig } from '../../src/config.ts';
import { mountRecords } from '../../src/records/plugin.ts';
import { type RunningApp, startApp } from '../../src/test-support.ts';
import { storeEnvOf } from './verifier-with-records.ts';

export interface VerifierOnHeldStore {
  readonly url: string;
  close(): Promise<void>;
}

/** `applyPassport` of `store` made to wait `ms` before it starts (the store as a slow database would answer). */
export function holdApplications(store: Store, ms: number): void {
  const real = store.keys.applyPassport.bind(store.keys);
  store.keys.applyPassport = async (passport) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return real(passport);
  };
}

/**
 * Starts the service on a fresh store of `dialect`; `prepare` gets the service's own store before it starts and may
 * return plugins to register before the records (e.g. one that decorates `bundleVerified` itself).
 */
export async function startVerifierOnHeldStore(
  dialect: StoreDialect,
  label: string,
  env: Record<string, string>,
  prepare: (store: Store) => readonly ExtraPlugin[] | undefined,
): Promise<VerifierOnHeldStore> {
  let target: StoreTarget | undefined;
  let dataDir: string | undefined;
  let app: RunningApp | undefined;
  const close = async () => {
    await app?.close();
    await target?.cleanup();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  };
  try {
    target = await createStoreTarget(dialect, label);
    dataDir = await mkdtemp(join(tmpdir(), `proto-${label}-`));
    const serviceEnv = { ...storeEnvOf(target, dataDir), ...env };
    const mounted = await mountRecords(
      loadVerificationConfig({ ...serviceEnv, HOST: '127.0.0.1', PORT: '0' }),
    );
    const before = prepare(mounted.options['store'] as Store) ?? [];
    app = await startApp({ ...serviceEnv, VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0' }, [
      ...before,
      mounted,
    ]);
    return { url: app.url, close };
  } catch (error) {
    await close();
    throw error;
  }
}
