// How every bench starts a service of the stack (bench-service, thread-breakdown, first-request, memory): its
// own process, run as the image runs it (NODE_OPTIONS, compile cache) unless the caller's environment says
// otherwise, with its own data directory and port, ready when /ready answers. What differs between the
// benches is the entry (which service, which checkout), the Node flags and the variables set over these.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from '@proto/testing';
import autocannon from 'autocannon';
import { IMAGE_NODE_OPTIONS } from './image-env.ts';

/** The checkout these benches belong to (another one's services can be started for a before/after). */
export const THIS_CHECKOUT = fileURLToPath(new URL('..', import.meta.url));
/** Shared by every bench run: a first start writes it (P36), later starts read it as the image's would. */
export const COMPILE_CACHE = join(tmpdir(), 'proto-bench-compile-cache');
/** A loaded machine can take well over 30 s to start a service (compile cache cold, cores busy). */
const READY_TIMEOUT_MS = 90_000;

/** The entry of service `name` (a directory under services/) in checkout `root`. */
export const serviceMain = (root: string, name: string) => join(root, 'services', name, 'src', 'main.ts');

export interface LaunchOptions {
  /** The service's entry file: serviceMain(root, name), or a variant's (another build, another main). */
  readonly entry: string;
  /** Node flags before the entry (--cpu-prof, GC flags). */
  readonly nodeFlags?: readonly string[];
  /** The working directory, the checkout the entry belongs to; unset, this process's. */
  readonly cwd?: string;
  /** Variables over everything else (the service's settings, or the image's over the caller's). */
  readonly env?: Readonly<Record<string, string>>;
  /** Unset: a fresh temporary directory that stop() removes. */
  readonly dataDir?: string;
  /** Unset: a port free at the time. */
  readonly port?: number;
  /** Receives the service's standard output (its log lines); unset, they go nowhere. */
  readonly onStdout?: (chunk: Buffer) => void;
  /** Names the service in errors. */
  readonly name?: string;
  /** Variables taken out of the environment last (a run without the compile cache, P119). */
  readonly unset?: readonly string[];
}

export interface LaunchedService {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly port: number;
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  /** From the spawn to the first /ready that answered 200 (polled every 10 ms). */
  readonly readyMs: number;
  /** SIGTERM, wait for the exit, remove the data directory if the launch made it. */
  stop(): Promise<void>;
}

/**
 * A launched service's environment: the image's Node settings under `inherited` (a caller's NODE_OPTIONS
 * wins), this launch's data directory and address over it, `overrides` over everything.
 */
export function serviceEnv(
  inherited: NodeJS.ProcessEnv,
  dataDir: string,
  port: number,
  overrides: Readonly<Record<string, string>> = {},
): NodeJS.ProcessEnv {
  return {
    // As the image runs it (docker/Dockerfile; docs/operations.md, Memory).
    NODE_OPTIONS: IMAGE_NODE_OPTIONS,
    NODE_COMPILE_CACHE: COMPILE_CACHE,
    ...inherited,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    // Load shedding off: a bench loads the service past where it would start answering 503.
    MAX_EVENT_LOOP_DELAY_MS: '0',
    ...overrides,
  };
}

/** SIGTERM and the exit; nothing for a process that has ended already. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

export async function launchService(options: LaunchOptions): Promise<LaunchedService> {
  const name = options.name ?? options.entry;
  const port = options.port ?? (await freePort());
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'proto-bench-service-'));
  const env = serviceEnv(process.env, dataDir, port, options.env);
  for (const name of options.unset ?? []) delete env[name];
  const t0 = performance.now();
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), options.entry], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env,
    // Log lines go nowhere unless asked for, as to a log shipper that keeps up; writing them is still paid for.
    stdio: ['ignore', options.onStdout === undefined ? 'ignore' : 'pipe', 'inherit'],
  });
  if (options.onStdout !== undefined) child.stdout?.on('data', options.onStdout);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child);
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await untilReady(child, url, name);
  } catch (error) {
    await stop();
    throw error;
  }
  return { child, pid: child.pid!, port, url, readyMs: performance.now() - t0, stop };
}

async function untilReady(child: ChildProcess, url: string, name: string): Promise<void> {
  const ready = async () => {
    // A refused connection: not listening yet.
    if (
      await fetch(`${url}/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return true;
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}) before /ready`);
    return false;
  };
  // Every 10 ms: fine enough for first-request's start time; a poll costs the service almost nothing.
  await waitFor(ready, READY_TIMEOUT_MS, `${name} to answer /ready`, 10);
}

/**
 * Discarded load on a fresh service before what is measured: its JavaScript runs unoptimised at first (V8
 * is still tiering functions up after hundreds of verifications) and its verification threads start on
 * demand, so a run on a fresh service pays for both (the first row's main thread read 2.07 ms per request
 * against 1.04 ms five rows later, P98; a fresh comparison service, about 1 ms a bundle more than the
 * table's warm one at elevated-10, P114).
 */
export async function warmUpFor(
  seconds: number,
  url: string,
  jsonBody: string,
  connections: number,
): Promise<void> {
  if (seconds <= 0) return;
  await autocannon({
    url: `${url}/verify`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: jsonBody,
    connections,
    duration: seconds,
  });
}

/** One service variant a same-run comparison starts: a label, Node flags, and the checkout whose service runs. */
export interface Variant {
  readonly label: string;
  readonly flags: readonly string[];
  /** The service's variables this variant sets (P620: `VERIFY_POOL_ENGINE=threads`). */
  readonly env: Readonly<Record<string, string>>;
  /** The checkout whose service runs (undefined: this one). */
  readonly checkout?: string;
}

/** A word of a variant that sets a variable of the service rather than passing Node a flag. */
const VARIABLE = /^([A-Z][A-Z0-9_]*)=(.*)$/;

/**
 * Reads `label[@CHECKOUT]=node flags` entries separated by `;` (flags separated by spaces; empty: none; a word
 * `NAME=value` sets the service's variable instead), the form of BREAKDOWN_VARIANTS and GC_CENSUS_VARIANTS;
 * `variable` names the setting in errors.
 */
export function parseVariants(text: string, variable: string): readonly Variant[] {
  return text.split(';').map((v) => {
    const at = v.indexOf('=');
    if (at < 0) throw new Error(`${variable}: ${v} has no '='`);
    const [label = '', checkout] = v.slice(0, at).split('@');
    const words = v
      .slice(at + 1)
      .split(' ')
      .filter((f) => f !== '');
    const env: Record<string, string> = {};
    for (const word of words) {
      const set = VARIABLE.exec(word);
      if (set !== null) env[set[1]!] = set[2]!;
    }
    return {
      label: label.trim(),
      ...(checkout === undefined ? {} : { checkout: checkout.trim() }),
      flags: words.filter((w) => !VARIABLE.test(w)),
      env,
    };
  });
}
