// The soak's fault schedule: kill -9 of each service (held down, then restarted), a PostgreSQL restart and
// a Redis outage (of the soak's own servers, bench/soak/dependencies.ts), each with the alerts of deploy/monitoring/rules that must fire during it (issue 16 item 5).
import type { OwnPostgres, OwnRedis } from './dependencies.ts';
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

export function faultSchedule(
  stack: Stack,
  options: { downSeconds: number; dbFaults: boolean; postgres: OwnPostgres; redis: OwnRedis },
): Fault[] {
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
  // Every session cut while the server stays up (what a failover or a pooler restart does).
  faults.push({
    name: 'PostgreSQL connections terminated',
    expect: [],
    run: async () => {
      stack.terminateConnections();
      await sleep(down);
    },
  });
  if (!options.dbFaults) return faults;
  faults.push({
    name: 'PostgreSQL restart',
    // Every service with a store reports it down while the server is away.
    expect: ['transparency-log', 'anchor', 'revocation'].map(
      (job) => `alertname="DependencyDown",job="${job}",dependency="store"`,
    ),
    run: async () => {
      // The soak's own cluster: stop + start with a pause (a `restart` is over before a scrape could see it).
      options.postgres.stopImmediate();
      await sleep(down);
      await options.postgres.start();
    },
  });
  faults.push({
    name: 'Redis stop and start',
    // Every service keeps its rate-limit counters in Redis and reports the connection.
    expect: SERVICE_NAMES.map((job) => `alertname="DependencyDown",job="${job}",dependency="redis"`),
    run: async () => {
      await options.redis.stop();
      await sleep(down);
      await options.redis.start();
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
