// What a signature costs when both cores verify at once (issue 14, P127). The share divides a bundle's raw
// signature cost, replayed on one thread with the other core idle (raw-replay.ts), by the service's CPU per
// verify; under load the service runs the same verify() calls on both cores at once. On a VM whose vCPUs share
// a physical core's resources (SMT siblings on the host), or whose host lowers clocks with both busy, each call
// then costs more CPU than the replay says, and no service can reach a share above 1/k, where k = CPU per
// round of the calls with two threads replaying together ÷ CPU per round with one thread replaying alone.
// Two worker_threads measure it here, in their own CPU time, the sides alternated (one both [spin], then the
// reverse) so the host's drift falls on each; `spin` adds a side where the second thread spins on JSON work
// instead, to tell shared core resources (it slows the replay too) from contention for the crypto itself.
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import {
  type BackendPreference,
  DONE,
  GO,
  SIGNAL_SLOTS,
  type ThreadReading,
  type ThreadTask,
} from './contention-signals.ts';
import type { SignatureCall } from './engine-cases.ts';
import { median } from './median.ts';
import { machineJiffies } from './proc-stats.ts';

/** one: a thread replays, the other idles; both: both replay at once; spin: one replays, the other spins on JSON. */
export type SideKind = 'one' | 'both' | 'spin';

export interface SideReading {
  readonly kind: SideKind;
  /** CPU ms per round of the calls, of the replaying thread (both threads' rounds together on `both`). */
  readonly cpuMs: number;
  /** CPU ÷ wall of the replaying thread(s): under 1 when something else took their core. */
  readonly cpuShare: number;
  /** Steal over the side: its share of all the machine's jiffies (/proc/stat). */
  readonly steal: number;
  /** Cores the machine kept busy meanwhile beyond this process: other processes' work. */
  readonly otherCores: number;
}

export interface Contention {
  /** Every round's sides, in the order they ran. */
  readonly measured: readonly (readonly SideReading[])[];
  /** The rounds the figures are taken from: those no other process disturbed (see contentionOf). */
  readonly rounds: readonly (readonly SideReading[])[];
  /** Medians over the rounds: CPU ms per round of the calls, one thread alone, both at once, beside JSON. */
  readonly oneMs: number;
  readonly bothMs: number;
  /** NaN when no spin side was measured. */
  readonly spinMs: number;
  /** Median over the rounds of both ÷ one of the same round. */
  readonly k: number;
  /** Median over the rounds of spin ÷ one of the same round (NaN without spin sides). */
  readonly kSpin: number;
  /** Same against same: median of each kept round's one side ÷ the next kept round's (drift and noise alone). */
  readonly control: number;
}

/** Per round, `kind`'s CPU per round of the calls ÷ the one-thread side's of the same round. */
export function ratiosOf(rounds: readonly (readonly SideReading[])[], kind: SideKind): number[] {
  return rounds.flatMap((sides) => {
    const one = sides.find((s) => s.kind === 'one');
    const other = sides.find((s) => s.kind === kind);
    return one === undefined || other === undefined ? [] : [other.cpuMs / one.cpuMs];
  });
}

/** Each kept round's one-thread side ÷ the next kept round's: what k would read if both changed nothing. */
export function controlRatios(rounds: readonly (readonly SideReading[])[]): number[] {
  const ones = rounds.flatMap((sides) => sides.filter((s) => s.kind === 'one').map((s) => s.cpuMs));
  return ones.slice(1).map((next, i) => next / ones[i]!);
}

/**
 * Other processes' cores over a side above which its round is left out: the one-thread side must have the
 * other core idle, and a busy core beside either side is a different experiment (the spin side's).
 */
export const DISTURBED_CORES = 0.25;

/** The medians and ratios of the rounds no other process disturbed. */
export function contentionOf(measured: readonly (readonly SideReading[])[]): Contention {
  const rounds = measured.filter((sides) => sides.every((s) => s.otherCores <= DISTURBED_CORES));
  const of = (kind: SideKind) =>
    median(rounds.flatMap((r) => r.filter((s) => s.kind === kind).map((s) => s.cpuMs)));
  return {
    measured,
    rounds,
    oneMs: of('one'),
    bothMs: of('both'),
    spinMs: of('spin'),
    k: median(ratiosOf(rounds, 'both')),
    kSpin: median(ratiosOf(rounds, 'spin')),
    control: median(controlRatios(rounds)),
  };
}

/** Two threads holding the calls (each its own backend and key cache, as each pool thread has). */
class ThreadPair {
  private readonly threads: readonly [Worker, Worker];
  private readonly state: Int32Array;
  private generation = 0;

  private constructor(threads: readonly [Worker, Worker], signals: SharedArrayBuffer) {
    this.threads = threads;
    this.state = new Int32Array(signals);
  }

  static async start(calls: readonly SignatureCall[], preference: BackendPreference): Promise<ThreadPair> {
    const signals = new SharedArrayBuffer(SIGNAL_SLOTS * Int32Array.BYTES_PER_ELEMENT);
    const url = new URL('./contention-worker.ts', import.meta.url);
    const start = () => new Worker(url, { workerData: { calls, preference, signals } });
    const threads: [Worker, Worker] = [start(), start()];
    await Promise.all(threads.map((t) => once(t, 'online')));
    return new ThreadPair(threads, signals);
  }

  /** One side over `windowMs`; `first` is the thread that replays on `one` and `spin`. */
  async side(kind: SideKind, windowMs: number, first: 0 | 1): Promise<SideReading> {
    const generation = ++this.generation;
    const measuredThreads = kind === 'both' ? 2 : 1;
    const task = (role: ThreadTask['role'], measured: boolean): ThreadTask => ({
      role,
      measured,
      windowMs,
      generation,
      measuredThreads,
    });
    const [a, b] = first === 0 ? this.threads : [this.threads[1], this.threads[0]];
    const tasks: [Worker, ThreadTask][] = [[a, task('replay', true)]];
    if (kind === 'both') tasks.push([b, task('replay', true)]);
    if (kind === 'spin') tasks.push([b, task('spin', false)]);
    Atomics.store(this.state, DONE, 0);
    const ready = tasks.map(([t]) => once(t, 'message'));
    for (const [t, tk] of tasks) t.postMessage(tk);
    await Promise.all(ready);
    const results = tasks.map(([t]) => once(t, 'message') as Promise<[ThreadReading]>);
    const machine0 = machineJiffies();
    const own0 = process.cpuUsage();
    const t0 = performance.now();
    Atomics.store(this.state, GO, generation);
    Atomics.notify(this.state, GO);
    const readings = (await Promise.all(results)).map(([r]) => r).filter((r) => r.rounds > 0);
    const wallMs = performance.now() - t0;
    const own = process.cpuUsage(own0);
    const machine1 = machineJiffies();
    const jiffies = Math.max(1, machine1.total - machine0.total);
    const machineCores = ((machine1.busy - machine0.busy) / jiffies) * availableParallelism();
    const sum = (pick: (r: ThreadReading) => number) => readings.reduce((s, r) => s + pick(r), 0);
    return {
      kind,
      cpuMs: sum((r) => r.cpuMs) / sum((r) => r.rounds),
      cpuShare: sum((r) => r.cpuMs) / sum((r) => r.wallMs),
      steal: (machine1.steal - machine0.steal) / jiffies,
      otherCores: machineCores - (own.user + own.system) / 1000 / wallMs,
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.terminate()));
  }
}

export interface ContentionOptions {
  /** Rounds wanted that no other process disturbed (DISTURBED_CORES). */
  readonly rounds: number;
  /** Rounds in all at most, disturbed ones included (the figures are NaN if none was undisturbed). */
  readonly maxRounds: number;
  readonly windowMs: number;
  /** Also measure one thread replaying beside one spinning on JSON work. */
  readonly spin: boolean;
  readonly preference: BackendPreference;
}

/**
 * k for `calls`: rounds of the sides (one, both[, spin]; every other round reversed, and the thread that
 * replays alone alternating) until `rounds` of them were undisturbed or `maxRounds` ran, after one discarded
 * round that warms both threads' JIT and key caches.
 */
export async function measureContention(
  calls: readonly SignatureCall[],
  options: ContentionOptions,
): Promise<Contention> {
  const kinds: SideKind[] = options.spin ? ['one', 'both', 'spin'] : ['one', 'both'];
  const pair = await ThreadPair.start(calls, options.preference);
  try {
    for (const kind of kinds) await pair.side(kind, Math.min(options.windowMs, 200), 0);
    const rounds: SideReading[][] = [];
    for (let r = 0; r < options.maxRounds && contentionOf(rounds).rounds.length < options.rounds; r++) {
      const order = r % 2 === 0 ? kinds : [...kinds].reverse();
      const sides: SideReading[] = [];
      for (const kind of order) sides.push(await pair.side(kind, options.windowMs, r % 2 === 0 ? 0 : 1));
      rounds.push(sides);
    }
    return contentionOf(rounds);
  } finally {
    await pair.close();
  }
}
