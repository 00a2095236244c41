// The soak's fault schedule: kill -9 of each service (held down, then restarted), a PostgreSQL restart and
// a Redis outage, each with the alerts of deploy/monitoring/rules that must fire during it (issue 16 item 5).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { SERVICE_NAMES, type Stack } from './stack.ts';

export interface Fault {
  readonly name: string;
  /** ALERTS label selectors (without alertstate) of which each must fire during the fault. */
  readonly expect: readonly string[];
  run(): Promise<void>;
}

export interface FaultRun {
  readonly fault: Fault;
  readonly start: number;
  readonly end: number;
  readonly error?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function sh(command: string, args: string[]): void {
  execFileSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(250);
  }
}

function pgReady(): boolean {
  try {
    sh('pg_isready', ['-q', '-h', '127.0.0.1', '-p', '5432']);
    return true;
  } catch {
    return false;
  }
}

function redisReady(): boolean {
  try {
    sh('redis-cli', ['-h', '127.0.0.1', '-p', '6379', 'ping']);
    return true;
  } catch {
    return false;
  }
}

function startPostgres(): void {
  const cluster = readdirSync('/etc/postgresql')[0] ?? '';
  sh('pg_ctlcluster', ['--skip-systemctl-redirect', cluster, 'main', 'start']);
}

function startRedis(): void {
  mkdirSync('/var/lib/redis', { recursive: true });
  mkdirSync('/var/log/redis', { recursive: true });
  // biome-ignore format: the command line of .ci/run
  sh('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '-::1', '--port', '6379', '--save', '', '--appendonly', 'no', '--dir', '/var/lib/redis', '--logfile', '/var/log/redis/ci.log']);
}

/** Brings PostgreSQL and Redis back if a fault left them down (the soak stopped mid-fault). */
export function restoreDependencies(): void {
  for (const [ready, start] of [
    [pgReady, startPostgres],
    [redisReady, startRedis],
  ] as const) {
    try {
      if (!ready()) start();
    } catch {
      // reported by the checks that follow
    }
  }
}

export function faultSchedule(stack: Stack, options: { downSeconds: number; dbFaults: boolean }): Fault[] {
  const down = options.downSeconds * 1000;
  const faults: Fault[] = SERVICE_NAMES.map((name) => ({
    name: `kill -9 ${name}`,
    expect: [`alertname="ServiceDown",job="${name}"`],
    run: async () => {
      await stack.kill9(name);
      await sleep(down);
      await stack.restart(name);
    },
  }));
  // Safe on a shared server: only the soak's own sessions are cut (what a PostgreSQL restart does to them).
  faults.push({
    name: 'PostgreSQL connections terminated',
    expect: [],
    run: async () => {
      stack.terminateConnections();
      await sleep(down);
    },
  });
  if (!options.dbFaults) return faults;
  const cluster = readdirSync('/etc/postgresql')[0] ?? '';
  faults.push({
    name: 'PostgreSQL restart',
    // Every service with a store reports it down while the server is away.
    expect: ['transparency-log', 'anchor', 'revocation'].map(
      (job) => `alertname="DependencyDown",job="${job}",dependency="store"`,
    ),
    run: async () => {
      // stop + start with a pause (a `restart` is over before a scrape could see it).
      sh('pg_ctlcluster', ['--skip-systemctl-redirect', '-m', 'immediate', cluster, 'main', 'stop']);
      await sleep(down);
      startPostgres();
      await until(pgReady, 60_000);
    },
  });
  faults.push({
    name: 'Redis stop and start',
    // Every service keeps its rate-limit counters in Redis and reports the connection.
    expect: SERVICE_NAMES.map((job) => `alertname="DependencyDown",job="${job}",dependency="redis"`),
    run: async () => {
      sh('redis-cli', ['-h', '127.0.0.1', '-p', '6379', 'shutdown', 'nosave']);
      await sleep(down);
      startRedis();
      await until(redisReady, 30_000);
    },
  });
  return faults;
}

/** Runs the faults one after another, `spacingMs` apart, from `startAt` (ms since epoch). */
export async function runFaults(faults: Fault[], startAt: number, spacingMs: number): Promise<FaultRun[]> {
  const runs: FaultRun[] = [];
  for (const [i, fault] of faults.entries()) {
    const at = startAt + i * spacingMs;
    if (at > Date.now()) await sleep(at - Date.now());
    const start = Date.now() / 1000;
    let error: string | undefined;
    try {
      await fault.run();
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    runs.push({ fault, start, end: Date.now() / 1000, ...(error === undefined ? {} : { error }) });
    process.stdout.write(`[soak] ${fault.name}: done${error ? ` (${error})` : ''}\n`);
  }
  return runs;
}
