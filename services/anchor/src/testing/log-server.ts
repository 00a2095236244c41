// Test support: the real transparency-log service (@proto/transparency-log) in-process on 127.0.0.1, with the
// hashes it accepted recorded. D18 (the log's API, signed checkpoints); issue 13 item 5 (no stand-in log).

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listenOnPort0, tempDir } from '@proto/testing';
import { buildTransparencyLog, loadTransparencyLogConfig } from '@proto/transparency-log';
import { OPERATOR } from './app.ts';

const ORIGIN = 'log.test.invalid/anchor';
/** The log's operator token unless a test names its own: POST /add always needs one (P7). */
export const TEST_LOG_TOKEN = 'anchor-test-log-operator-token-0001';

export interface LogTestServer {
  readonly url: string;
  /** Its operator token: give it to the anchor service as TL_TOKEN. */
  readonly token: string;
  /** Bundle hashes of the POST /add calls the log accepted (duplicates included). */
  readonly appends: string[];
  /** The C2SP verifier key of its Ed25519 checkpoint signature. */
  readonly verifierKey: string;
  /** Signs a checkpoint of the current tree now instead of at the next CHECKPOINT_INTERVAL_MS tick. */
  checkpoint(): Promise<void>;
  close(): Promise<void>;
}

export async function startLogServer(options: { readonly token?: string } = {}): Promise<LogTestServer> {
  const data = await tempDir('anchor-test-log');
  const app = await buildTransparencyLog({
    config: loadTransparencyLogConfig({
      LOG_LEVEL: 'silent',
      DATA_DIR: data.dir,
      LOG_ORIGIN: ORIGIN,
      OPERATOR_TOKEN: options.token ?? TEST_LOG_TOKEN,
      // Appends and checkpoints within milliseconds, so a receipt is provable right after anchoring.
      BATCH_WAIT_MS: '2',
      CHECKPOINT_INTERVAL_MS: '50',
      ADD_RATE_LIMIT_PER_MINUTE: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      PROBE_REUSE_MS: '0',
    }),
    logger: false,
  });
  const appends: string[] = [];
  app.addHook('onResponse', async (request, reply) => {
    const body = request.body as { bundle_hash?: unknown } | undefined;
    if (request.method === 'POST' && request.url === '/add' && reply.statusCode < 300) {
      if (typeof body?.bundle_hash === 'string') appends.push(body.bundle_hash);
    }
  });
  const verifierKey = app.transparencyLog.keys.vkeys.find((key) => key.startsWith(`${ORIGIN}+`));
  if (verifierKey === undefined) throw new Error('the test log has no verifier key');
  const running = await listenOnPort0(app);
  return {
    url: running.url,
    token: options.token ?? TEST_LOG_TOKEN,
    appends,
    verifierKey,
    checkpoint: async () => {
      await app.transparencyLog.checkpointer.tick();
    },
    close: async () => {
      await running.close();
      await data.remove();
    },
  };
}

/** The operator token of the log `buildRootAnchoringLog` builds. */
export const ROOT_ANCHORING_LOG_TOKEN = 'log-operator-token-0123456789';

/**
 * The real log in-process (silent, no timers: the test ticks its checkpointer and anchorer) anchoring its
 * signed roots on `chain` through the anchor service listening at `anchorUrl` (D18, P63).
 */
export async function buildRootAnchoringLog(options: {
  readonly anchorUrl: string;
  readonly chain: 'bitcoin' | 'ethereum';
  /** Prefix of its DATA_DIR under the system's temporary folder. */
  readonly label: string;
}) {
  return buildTransparencyLog({
    config: loadTransparencyLogConfig({
      LOG_LEVEL: 'silent',
      DATA_DIR: mkdtempSync(join(tmpdir(), `${options.label}-`)),
      OPERATOR_TOKEN: ROOT_ANCHORING_LOG_TOKEN,
      BATCH_WAIT_MS: '2',
      ADD_RATE_LIMIT_PER_MINUTE: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      PROBE_REUSE_MS: '0',
      ANCHOR_SERVICE_URL: options.anchorUrl,
      ANCHOR_TOKEN: OPERATOR,
      ANCHOR_CHAIN: options.chain,
    }),
    logger: false,
    timers: false,
  });
}
