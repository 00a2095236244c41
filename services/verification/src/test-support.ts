// Test helpers: a verification app on a real listening socket, the service as a child process, and
// builder-made bundles.
// Used by the *.test.ts files of this service (docs/architecture.md §6: end-to-end tests over real HTTP).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, buildSignedBundle } from '@proto/core';
import { listenOnPort0, waitFor } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { buildVerificationApp, type ExtraPlugin } from './app.ts';
import { loadVerificationConfig } from './config.ts';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

export interface SpawnedService {
  readonly child: ChildProcess;
  /** Its standard output and error so far, in the order they arrived. */
  readonly output: () => string;
  readonly exit: Promise<number | null>;
  /**
   * Its address (`http://127.0.0.1:PORT`) once it logs "listening on"; rejects with its output if it exits
   * first or takes longer than `timeoutMs`. With PORT 0 the kernel picks the port, so no test races
   * another process (or a client's ephemeral port) for one it guessed.
   */
  readonly listening: (timeoutMs?: number) => Promise<string>;
}

/**
 * The real service (main.ts, as `pnpm start:verification` runs it) as a child process on a minimal
 * environment, PATH and HOST=127.0.0.1 under `env`, so nothing of the test's environment leaks in.
 */
export function spawnService(env: Record<string, string>, nodeFlags: readonly string[] = []): SpawnedService {
  const child = spawn(process.execPath, [...nodeFlags, MAIN], {
    env: { PATH: process.env['PATH'] ?? '', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const collect = (chunk: Buffer) => {
    text += String(chunk);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const address = () => {
    const logged = /listening on (http:\/\/[^"\s]+)/.exec(text)?.[1];
    if (logged !== undefined) return logged;
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the service exited (${child.exitCode ?? child.signalCode}) before listening`);
    return undefined;
  };
  // Either failure carries the service's output, which says why.
  const listening = (timeoutMs = 30_000): Promise<string> =>
    waitFor(address, timeoutMs, 'the service to listen').catch((error: Error) => {
      throw new Error(`${error.message}:\n${text}`, { cause: error });
    });
  return { child, output: () => text, exit, listening };
}

export interface RunningApp {
  readonly app: FastifyInstance;
  readonly url: string;
  /** The rate-limit store's key prefix, unique to this app (tests read its Redis keys); set by startApp. */
  readonly rateLimitKeyPrefix?: string;
  close(): Promise<void>;
}

/** Starts the service on 127.0.0.1 with an ephemeral port; env values override quiet test defaults. */
export async function startApp(
  env: Record<string, string> = {},
  extraPlugins: ExtraPlugin[] = [],
): Promise<RunningApp> {
  // A DATA_DIR of its own (the revocation watermarks live there), removed on close, unless one is given.
  const dataDir =
    env['DATA_DIR'] === undefined ? mkdtempSync(join(tmpdir(), 'proto-verification-')) : undefined;
  const removeDataDir = () => {
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    return await listening(env, extraPlugins, dataDir, removeDataDir);
  } catch (error) {
    removeDataDir();
    throw error;
  }
}

async function listening(
  env: Record<string, string>,
  extraPlugins: ExtraPlugin[],
  dataDir: string | undefined,
  removeDataDir: () => void,
): Promise<RunningApp> {
  const config = loadVerificationConfig({
    ...(dataDir === undefined ? {} : { DATA_DIR: dataDir }),
    LOG_LEVEL: 'silent',
    VERIFY_WORKERS: '2',
    HOST: '127.0.0.1',
    PORT: '0',
    // P582: tests read /ready and /metrics right after a change; the code's 1000 would answer the earlier result.
    PROBE_REUSE_MS: '0',
    ...(process.env['REDIS_URL'] ? { REDIS_URL: process.env['REDIS_URL'] } : {}),
    ...env,
  });
  const rateLimitKeyPrefix = `test:${randomUUID()}:`;
  const app = await buildVerificationApp({ config, extraPlugins, rateLimitKeyPrefix });
  const { url, close } = await listenOnPort0(app);
  return {
    app,
    url,
    rateLimitKeyPrefix,
    close: async () => {
      await close();
      removeDataDir();
    },
  };
}

/**
 * A service whose every /verify reaches a verification thread (no verdict cache, no rate limit), with at
 * most `workers` threads, each stopped after `idleMs` without work: for the tests that watch the threads.
 */
export function startThreadedApp(workers: number, idleMs: number): Promise<RunningApp> {
  return startApp({
    VERIFY_WORKERS: String(workers),
    VERIFY_WORKER_IDLE_MS: String(idleMs),
    VERIFICATION_CACHE_MAX_ENTRIES: '0',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
  });
}

/** A builder bundle: `signed_bundle` plus the agent's classical kid and the agent id (V2). */
export function sampleBundle(options: BuildOptions) {
  const built = buildSignedBundle(options);
  const bundle = built.signed_bundle['bundle'] as Record<string, Record<string, Record<string, unknown>>>;
  const agentId = (bundle['agent_passport']?.['payload']?.['agent_id'] ?? undefined) as string | undefined;
  return { ...built, agentKid: built.keys.agent.classical.kid, agentId };
}

export async function postVerify(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const res = await fetch(`${url}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
}

/**
 * GET /v2/keys/<kid> once it answers `status`: a verification binds its passport's keys (and a rotation
 * unbinds them) after its answer, in the background.
 */
export async function keyOnceItAnswers(
  url: string,
  kid: string,
  status = 200,
  timeoutMs = 5_000,
): Promise<Response> {
  const answer = async () => {
    const res = await fetch(`${url}/v2/keys/${kid}`);
    if (res.status === status) return res;
    await res.arrayBuffer();
    return undefined;
  };
  return await waitFor(answer, timeoutMs, `/v2/keys/${kid} to answer ${status}`, 50);
}

/** The value of an unlabelled metric (a gauge or counter sample) scraped from the service's /metrics. */
export async function metricValue(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (match === null) throw new Error(`${name} not in /metrics`);
  return Number(match[1]);
}
