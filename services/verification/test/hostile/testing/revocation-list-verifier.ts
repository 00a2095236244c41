// The real revocation service (jurisdiction US, its list never stale-cached) as the one REVOCATION_SOURCES source of a
// real verification service, and `proto verify --revocation-list` (the real CLI spawned) reading the same list: the
// set-up the readers3/readers4 parity tests (P457, P516, P517) replay one list through every reader with.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningService, startService, tempDir } from '@proto/revocation/testing';
import { runProcess, tempDirSync } from '@proto/testing';
import { afterAll, beforeAll } from 'vitest';
import { type RunningApp, startApp } from '../../../src/test-support.ts';

const CLI = fileURLToPath(new URL('../../../../../packages/cli/src/main.ts', import.meta.url));

export interface RevocationListVerifier {
  /** The revocation service whose list both readers read. */
  readonly us: RunningService;
  /** The verification service with the list as its only revocation source. */
  readonly verifier: RunningApp;
  /**
   * `proto verify --json` on `document` (written to a fresh file) with `--revocation-list` and `--revocation-key` of
   * the same list: its parsed answer (or `{stderr}` where it printed none) and exit code.
   */
  cliVerify(document: unknown): Promise<{ answer: unknown; code: number | null }>;
  close(): Promise<void>;
}

/** Starts both services; `label` names their temporary directories. */
export async function startRevocationListVerifier(label: string): Promise<RevocationListVerifier> {
  const work = tempDirSync(label);
  const dir = tempDir(`${label}-list`);
  let us: RunningService | undefined;
  let verifier: RunningApp | undefined;
  const close = async () => {
    await verifier?.close();
    await us?.close();
    dir.remove();
    work.remove();
  };
  try {
    us = await startService({
      dataDir: dir.dir,
      env: { JURISDICTION: 'US', LIST_MAX_AGE_S: '0', LOG_LEVEL: 'warn' },
      timer: false,
    });
    const health = (await (await fetch(`${us.url}/health`)).json()) as Record<string, unknown>;
    const listKey = health['revocation_public_key_b64'] as string;
    verifier = await startApp({
      VERIFY_WORKERS: '1',
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      VERIFICATION_CACHE_MAX_ENTRIES: '0',
      REVOCATION_SOURCES: JSON.stringify({ US: { url: us.listUrl, keys: [listKey] } }),
    });
    const list = us;
    let files = 0;
    return {
      us: list,
      verifier,
      cliVerify: async (document) => {
        files += 1;
        const where = path.join(work.dir, `document-${files}.json`);
        writeFileSync(where, JSON.stringify(document));
        const run = await runProcess(
          process.execPath,
          [CLI, 'verify', '--json', where, '--revocation-list', list.listUrl, '--revocation-key', listKey],
          { input: '' },
        );
        return {
          answer: JSON.parse(run.stdout || `{"stderr": ${JSON.stringify(run.stderr)}}`),
          code: run.code,
        };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Registers the suite's hooks: the set-up started before its tests (temporary directories named after `label`) and
 * closed after them; the object answers for it once the tests run.
 */
export function revocationListSuite(label: string): Omit<RevocationListVerifier, 'close'> {
  let running: RevocationListVerifier | undefined;
  beforeAll(async () => {
    running = await startRevocationListVerifier(label);
  }, 60_000);
  afterAll(async () => {
    await running?.close();
  });
  const started = () => {
    if (running === undefined) throw new Error('the revocation list set-up starts in beforeAll');
    return running;
  };
  return {
    get us() {
      return started().us;
    },
    get verifier() {
      return started().verifier;
    },
    cliVerify: (document) => started().cliVerify(document),
  };
}
