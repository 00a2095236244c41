// End to end, issue 18 item 2: the REAL witness service (two instances, plus a third the log does not use), the
// REAL transparency log submitting to them (LOG_WITNESSES, quorum 2), the real anchor service making the receipts,
// and this service's /verify and the `proto verify` CLI requiring the witnesses (ANCHOR_VERIFY_WITNESS_KEYS,
// --witness-key). Everything is in-process and talks HTTP on 127.0.0.1, on SQLite and (with DATABASE_URL)
// PostgreSQL. No fixture adds cosignature lines: what a verifier sees is what the witnesses signed and the log
// published. P56, P57, P59, P60 (and P55 for this test).
import { writeFileSync } from 'node:fs';
import { getReceipt, postAnchor, testApp } from '@proto/anchor/testing';
import { runCli } from '@proto/cli';
import { encodeBase64, formatVerifierKey, noteVerifierKey, selectCryptoBackend } from '@proto/core';
import { openStore, type StoreDialect, type StoreOptions } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { type ListeningApp, listenOnPort0, type TempDir, tempDir } from '@proto/testing';
import { buildTransparencyLog, loadTransparencyLogConfig } from '@proto/transparency-log';
import { buildTestWitness } from '@proto/witness/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from './test-support.ts';

const ORIGIN = 'log.test/e2e-witnessed';
const LOG_TOKEN = 'e2e-witnessed-log-operator-token-0001';

/** The log's keys made up front: the witnesses must trust the log before it starts; a fork reuses them. */
function logIdentity() {
  const backend = selectCryptoBackend();
  const ed25519 = backend.generateKeyPair('ed25519');
  const key = noteVerifierKey(ORIGIN, 'ed25519', ed25519.publicKey);
  if (!key.ok) throw new Error(key.error.message);
  return {
    vkey: formatVerifierKey(key.value),
    env: {
      LOG_ORIGIN: ORIGIN,
      LOG_ED25519_KEY: encodeBase64(ed25519.secretKey),
      LOG_MLDSA_KEY: encodeBase64(backend.generateKeyPair('ml-dsa-65').secretKey),
    },
  };
}

const identity = logIdentity();
const dirs: TempDir[] = [];
const closers: (() => Promise<unknown>)[] = [];

async function dataDir(label: string): Promise<string> {
  const dir = await tempDir(`e2e-witnessed-${label}`);
  dirs.push(dir);
  return dir.dir;
}

interface Witness {
  readonly url: string;
  readonly vkey: string;
  readonly port: number;
  readonly dir: string;
  readonly store: StoreOptions;
  readonly running: ListeningApp<FastifyInstance>;
}

/**
 * The real witness service trusting the log's key, on `store`; restarted on the same `dir` (its key), `store`
 * (what it cosigned) and `port` (what the log was told) it is the same witness.
 */
async function startWitness(name: string, store: StoreOptions, dir?: string, port = 0): Promise<Witness> {
  const home = dir ?? (await dataDir(name.replace(/\W/g, '-')));
  const app = await buildTestWitness(
    home,
    { WITNESS_NAME: name, WITNESS_LOGS: `${ORIGIN} ${identity.vkey}` },
    store,
  );
  const running = port === 0 ? await listenOnPort0(app) : await listenAt(app, port);
  closers.push(() => running.close());
  return { url: running.url, vkey: app.witness.vkey, port: running.port, dir: home, store, running };
}

async function listenAt<App extends FastifyInstance>(app: App, port: number): Promise<ListeningApp<App>> {
  await app.listen({ host: '127.0.0.1', port });
  return { app, url: `http://127.0.0.1:${port}`, port, close: async () => void (await app.close()) };
}
/** The real log (checkpoints only when the test ticks); `witnesses` empty = no witnessing at all. */
async function startLog(
  label: string,
  store: StoreOptions,
  witnesses: readonly Witness[],
  dir?: string,
  port = 0,
) {
  const home = dir ?? (await dataDir(label));
  const app = await buildTransparencyLog({
    config: loadTransparencyLogConfig({
      LOG_LEVEL: 'silent',
      DATA_DIR: home,
      OPERATOR_TOKEN: LOG_TOKEN,
      BATCH_WAIT_MS: '2',
      ADD_RATE_LIMIT_PER_MINUTE: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      ...identity.env,
      ...(witnesses.length === 0
        ? {}
        : {
            LOG_WITNESSES: witnesses.map((w) => `${w.url} ${w.vkey}`).join(','),
            LOG_WITNESS_QUORUM: String(witnesses.length),
            LOG_WITNESS_TIMEOUT_MS: '2000',
            // The test ticks by hand and restarts witnesses between ticks: ask at every tick (no P391 backoff).
            LOG_WITNESS_RETRY_MAX_MS: '0',
          }),
    }),
    store,
    logger: false,
    timers: false,
  });
  const running = port === 0 ? await listenOnPort0(app) : await listenAt(app, port);
  closers.push(() => running.close());
  return {
    url: running.url,
    port: running.port,
    dir: home,
    store,
    tick: () => app.transparencyLog.checkpointer.tick(),
    close: () => running.close(),
  };
}
type Log = Awaited<ReturnType<typeof startLog>>;

/** A new bundle anchored in `log` by the real anchor service; its receipt names the log's URL. */
async function anchoredBundle(log: Log, target: StoreTarget, label: string) {
  const bundle = sampleBundle({});
  const store = await openStore(target.fresh(`anchor-${label}`));
  const anchor = await testApp({ TL_URL: log.url, TL_TOKEN: LOG_TOKEN }, store);
  closers.push(async () => {
    await anchor.close();
    await store.close();
  });
  expect((await postAnchor(anchor, bundle.bundleHash, 'transparency-log')).statusCode).toBe(202);
  await anchor.anchorWorker.run('transparency-log', true);
  const file = `${await dataDir(`${label}-bundle`)}/bundle.json`;
  writeFileSync(file, JSON.stringify(bundle.signed_bundle));
  return {
    bundle,
    file,
    receipt: await getReceipt(anchor, bundle.bundleHash),
    /**
     * Another pass of the anchor service, then its receipt now. On a witnessed log the transparency-log adapter
     * gets the entry's proof only once a quorum-cosigned checkpoint covers it (P460): until then it is pending.
     */
    reanchor: async () => {
      await anchor.anchorWorker.run('transparency-log', true);
      return getReceipt(anchor, bundle.bundleHash);
    },
  };
}

function verifierEnv(log: Log, witnesses: readonly Witness[], quorum: number): Record<string, string> {
  return {
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    ANCHOR_VERIFY_CACHE_MAX_ENTRIES: '0',
    ANCHOR_VERIFY_LOG_URL: log.url,
    ANCHOR_VERIFY_LOG_KEY: identity.vkey,
    ANCHOR_VERIFY_WITNESS_KEYS: witnesses.map((w) => w.vkey).join(','),
    ANCHOR_VERIFY_WITNESS_QUORUM: String(quorum),
  };
}

async function verifier(env: Record<string, string>): Promise<RunningApp> {
  const app = await startApp(env);
  closers.push(() => app.close());
  return app;
}

async function verifyAt(app: RunningApp, anchored: Awaited<ReturnType<typeof anchoredBundle>>) {
  const { status, json } = await postVerify(app.url, {
    signed_bundle: anchored.bundle.signed_bundle,
    anchor_receipt: anchored.receipt,
  });
  expect(status).toBe(200);
  return json;
}

/** `proto verify FILE --log URL --log-key VKEY --witness-key … --witness-quorum K --json`, in-process. */
async function cli(file: string, log: Log, witnesses: readonly Witness[], quorum: number) {
  let stdout = '';
  let stderr = '';
  const args = [
    'verify',
    '--json',
    file,
    '--log',
    log.url,
    '--log-key',
    identity.vkey,
    ...witnesses.flatMap((w) => ['--witness-key', w.vkey]),
    '--witness-quorum',
    String(quorum),
  ];
  const code = await runCli(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    readStdin: async () => '',
    isTerminal: false,
    stderrIsTerminal: false,
  });
  return { code, out: stdout + stderr };
}

const anchorCheck = (json: Record<string, unknown>) => (json['checks'] as Record<string, string>)['anchor'];
const errorCodes = (json: Record<string, unknown>) =>
  ((json['error_details'] ?? []) as { code: string }[]).map((e) => e.code);

describe.each(dialectsUnderTest())(
  'witnessed log end to end on %s: real witnesses, real log, /verify and the CLI',
  (dialect: StoreDialect) => {
    let target: StoreTarget;
    let w1: Witness;
    let w2: Witness;
    let w3: Witness;
    let honest: Log;
    let anchored: Awaited<ReturnType<typeof anchoredBundle>>;
    let requireTwo: RunningApp;

    beforeAll(async () => {
      target = await createStoreTarget(dialect, 'e2e-witnessed');
      [w1, w2, w3] = await Promise.all([
        startWitness('witness.test/e2e-1', target.fresh('witness-1')),
        startWitness('witness.test/e2e-2', target.fresh('witness-2')),
        startWitness('witness.test/e2e-3', target.fresh('witness-3')),
      ]);
      honest = await startLog('honest', target.fresh('honest'), [w1, w2]);
      await honest.tick(); // the empty tree, cosigned by both: the log now publishes something
      requireTwo = await verifier(verifierEnv(honest, [w1, w2], 2));
    });

    afterAll(async () => {
      for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
      await target?.cleanup();
      for (const dir of dirs.splice(0)) await dir.remove();
    });

    it('a receipt passes only once the log has published the checkpoint both witnesses cosigned', async () => {
      // Witness 2 is down while the log signs the tree holding the new entry: signed, but not published.
      await w2.running.close();
      anchored = await anchoredBundle(honest, target, 'honest');
      await honest.tick();
      const early = await verifyAt(requireTwo, anchored);
      expect(early, JSON.stringify(early)).toMatchObject({ verified: true, checks: { anchor: 'skipped' } });
      expect(JSON.stringify(early['warnings'])).toMatch(/PROTO-E702, retryable/);
      const earlyCli = await cli(anchored.file, honest, [w1, w2], 2);
      expect(earlyCli.code, earlyCli.out).not.toBe(0);

      // Witness 2 back on its port with its key and state: the next round gets the quorum and publishes.
      w2 = await startWitness('witness.test/e2e-2', w2.store, w2.dir, w2.port);
      await honest.tick();
      // P460: the receipt was pending while no cosigned checkpoint covered the entry; it is made now.
      expect((anchored.receipt as { status?: string }).status).toBe('pending');
      anchored.receipt = await anchored.reanchor();
      const json = await verifyAt(requireTwo, anchored);
      expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
      expect(json['warnings']).toEqual([
        'anchor_receipt: log checkpoint cosigned by witness.test/e2e-1, witness.test/e2e-2 (witness quorum 2)',
      ]);
      const run = await cli(anchored.file, honest, [w1, w2], 2);
      expect(run.code, run.out).toBe(0);
      expect(run.out).toMatch(/witness\.test\/e2e-1, witness\.test\/e2e-2/);
    });

    it('a verifier requiring a third witness the log does not use (3 of 3) refuses with E103', async () => {
      const requireThree = await verifier(verifierEnv(honest, [w1, w2, w3], 3));
      const json = await verifyAt(requireThree, anchored);
      expect(json, JSON.stringify(json)).toMatchObject({ verified: false, checks: { anchor: 'fail' } });
      expect(errorCodes(json)).toEqual(['PROTO-E103']);
      expect(JSON.stringify(json['error_details'])).toMatch(/cosigned by 2 of the 3 required/);
      const run = await cli(anchored.file, honest, [w1, w2, w3], 3);
      expect(run.code, run.out).toBe(1);
      expect(run.out).toMatch(/PROTO-E103/);
    });

    it('split view: a fork with the same key and origin is refused by the witnesses and by the verifier', async () => {
      // The fork: same signing keys and origin, its own store and entries, submitting to the same witnesses.
      const fork = await startLog('fork', target.fresh('fork'), [w1, w2]);
      const forked = await anchoredBundle(fork, target, 'fork');
      await fork.tick();
      // Both witnesses already cosigned the honest history at this size or below and refuse the fork's: nothing
      // is published, so a verifier can only say "not yet".
      expect((await fetch(`${fork.url}/checkpoint`)).status).toBe(503);
      for (const w of [w1, w2])
        expect(await (await fetch(`${w.url}/metrics`)).text()).toMatch(
          /proto_witness_refused_total\{reason="inconsistent"\} [1-9]/,
        );
      const requireTwoAtFork = await verifier(verifierEnv(fork, [w1, w2], 2));
      const notYet = await verifyAt(requireTwoAtFork, forked);
      expect(anchorCheck(notYet)).toBe('skipped');

      // The fork's operator turns witnessing off to serve the forked checkpoint anyway, signed by the log's key.
      await fork.close();
      const bare = await startLog('fork-bare', fork.store, [], fork.dir, fork.port);
      await bare.tick();
      forked.receipt = await forked.reanchor();
      expect((await fetch(`${bare.url}/checkpoint`)).status).toBe(200);
      const atFork = await verifier(verifierEnv(bare, [w1, w2], 2));
      const json = await verifyAt(atFork, forked);
      expect(json, JSON.stringify(json)).toMatchObject({ verified: false, checks: { anchor: 'fail' } });
      expect(errorCodes(json)).toEqual(['PROTO-E103']);
      expect(JSON.stringify(json['error_details'])).toMatch(/cosigned by 0 of the 2 required/);
      const run = await cli(forked.file, bare, [w1, w2], 2);
      expect(run.code, run.out).toBe(1);
      expect(run.out).toMatch(/PROTO-E103/);

      // Without the witness requirement the same fork passes: the log's own signature is all it had.
      const {
        ANCHOR_VERIFY_WITNESS_KEYS: _k,
        ANCHOR_VERIFY_WITNESS_QUORUM: _q,
        ...unwitnessed
      } = verifierEnv(bare, [], 0);
      const trusting = await verifier(unwitnessed);
      expect(anchorCheck(await verifyAt(trusting, forked))).toBe('pass');

      // The honest log still passes with the same witnesses.
      expect(anchorCheck(await verifyAt(requireTwo, anchored))).toBe('pass');
      expect((await cli(anchored.file, honest, [w1, w2], 2)).code).toBe(0);
    });
  },
);
