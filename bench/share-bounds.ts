// The share bounds of `pnpm bench`, from figures of the same run (issue 14's "why it cannot go", P114, P116):
// for each row that has both an HTTP floor and a protocol floor,
//   floor bound        = raw ÷ (raw + HTTP floor + protocol floor)
//   strict floor bound = raw ÷ (raw + HTTP floor + strict protocol floor)
//   engine bound       = raw ÷ (raw + HTTP floor + the engine's own work, signatures answered at once)
//   ratio bound        = raw ÷ (raw + HTTP floor + strict protocol floor + load generator)
//   contended strict bound = raw ÷ (raw·k + HTTP floor + strict protocol floor)
// the most a verifier could reach with its HTTP side at the floor and its engine at a protocol floor, or at
// our engine's own cost; and the most of the raw limit on all cores its throughput could reach while the load
// generator takes its CPU per bundle from the same cores (P116); k is what the bundle's signature calls cost
// on two threads at once ÷ on one (bench/contention-replay.ts, P127): the service verifies on both cores, the
// raw replay on one, so the signatures alone cost the service raw·k. A batch row's HTTP floor is its bundle's
// single-request floor ÷ bundles per request (a lower bound: P116). The arithmetic and the row matching are
// pure; the protocol floors are timed with bench/protocol-floor.ts's own loop.
import type { CryptoBackend } from '@proto/core';
import { instantVerifier } from './engine-cases.ts';
import type { FloorKind } from './http-floor.ts';
import { floorCaseOf, measureFloorCase, type Wire } from './protocol-floor.ts';

/** A measured row: its raw signature cost, service CPU per verify and load generator CPU per bundle (ms). */
export interface RowCost {
  readonly name: string;
  readonly mode: string;
  readonly rawMs: number;
  readonly cpuMs: number;
  /** This process's CPU per bundle over the row: autocannon runs in it (bench/load-plan.ts). */
  readonly loadgenMs: number;
  /** Bundles per request: 1, or a batch's count. */
  readonly perRequest: number;
  /** bundles/s × raw ÷ cores: the throughput ratio the row reached. */
  readonly ratio: number;
}

/** An HTTP floor next to a row: the floor process's CPU per request, every thread (ms). */
export interface HttpFloor {
  readonly name: string;
  readonly mode: string;
  readonly kind: FloorKind;
  readonly allMs: number;
}

/** In-process, one thread (ms): the protocol floors and the engine with signatures answered at once. */
export interface ProtocolFloor {
  readonly name: string;
  readonly wire: Wire;
  readonly floorMs: number;
  readonly strictMs: number;
  readonly engineMs: number;
}

/** A bundle's k: CPU per round of its calls with both cores replaying ÷ with one (P127). */
export interface RawContention {
  readonly name: string;
  readonly k: number;
}

export interface ShareBound {
  readonly name: string;
  readonly mode: string;
  readonly rawMs: number;
  /** The lowest HTTP floor measured for the row (a batch: per bundle, see batchFloor), and which server. */
  readonly httpFloorMs: number;
  readonly httpFloorKind: FloorKind;
  readonly protocolFloorMs: number;
  readonly strictFloorMs: number;
  readonly engineOwnMs: number;
  readonly loadgenMs: number;
  readonly floorBound: number;
  readonly strictFloorBound: number;
  readonly engineBound: number;
  readonly ratioBound: number;
  /** The bundle's k (NaN: not measured, BENCH_CONTENTION=skip) and raw ÷ (raw·k + HTTP floor + strict floor). */
  readonly rawBothK: number;
  readonly contendedStrictBound: number;
  /** raw ÷ service CPU per verify: what the row reached. */
  readonly share: number;
  readonly ratio: number;
}

/** The wire a single-request mode sends; undefined for batch modes. */
export function wireOfMode(mode: string): Wire | undefined {
  if (mode === 'json') return 'JSON';
  if (mode === 'cbor') return 'CBOR';
  return undefined;
}

/** The wire each bundle of a row is read in: a batch's NDJSON lines are JSON, a CBOR sequence's items CBOR. */
export function bundleWireOfMode(mode: string): Wire | undefined {
  if (mode.startsWith('batch ndjson')) return 'JSON';
  if (mode.startsWith('batch cbor-seq')) return 'CBOR';
  return wireOfMode(mode);
}

/** The single-request mode whose HTTP floor a row's floor comes from. */
const singleModeOf = (wire: Wire) => (wire === 'JSON' ? 'json' : 'cbor');

/** raw ÷ (raw + everything else a request costs at least): the highest share those costs leave. */
export function boundOf(rawMs: number, ...otherMs: readonly number[]): number {
  return rawMs / otherMs.reduce((sum, ms) => sum + ms, rawMs);
}

/** raw ÷ (raw·k + everything else): the highest share left when each signature costs k times the raw replay. */
export function contendedBoundOf(rawMs: number, k: number, ...otherMs: readonly number[]): number {
  return rawMs / otherMs.reduce((sum, ms) => sum + ms, rawMs * k);
}

/**
 * The HTTP floor per bundle of a row: the lowest measured for it (a bound must not be lowered by a slower
 * server). A batch row has none of its own: it gets its bundle's single-request floor of the same wire ÷ the
 * bundles per request, a lower bound, since a request of n bundles costs at least one request's fixed work
 * (P116).
 */
function httpFloorOf(row: RowCost, wire: Wire, httpFloors: readonly HttpFloor[]): HttpFloor | undefined {
  const mode = row.perRequest > 1 ? singleModeOf(wire) : row.mode;
  const low = httpFloors
    .filter((f) => f.name === row.name && f.mode === mode)
    .reduce<HttpFloor | undefined>((l, f) => (l === undefined || f.allMs < l.allMs ? f : l), undefined);
  return low === undefined ? undefined : { ...low, allMs: low.allMs / row.perRequest };
}

/**
 * One bound per row that has an HTTP floor and a protocol floor of its bundle and wire; other rows get none.
 * The ratio bound: all cores busy on nothing but what each bundle needs at least (raw, the HTTP floor, the
 * strict floor, and the load generator's CPU per bundle as measured in the row) gives bundles/s ≤ cores ÷ that
 * sum, so bundles/s × raw ÷ cores ≤ raw ÷ that sum (P116). The contended strict bound takes the bundle's k
 * from `contention` (NaN for a bundle it does not hold).
 */
export function shareBounds(
  rows: readonly RowCost[],
  httpFloors: readonly HttpFloor[],
  protocolFloors: readonly ProtocolFloor[],
  contention: readonly RawContention[] = [],
): ShareBound[] {
  const bounds: ShareBound[] = [];
  for (const row of rows) {
    const wire = bundleWireOfMode(row.mode);
    if (wire === undefined) continue;
    const http = httpFloorOf(row, wire, httpFloors);
    const protocol = protocolFloors.find((f) => f.name === row.name && f.wire === wire);
    if (http === undefined || protocol === undefined) continue;
    const k = contention.find((c) => c.name === row.name)?.k ?? Number.NaN;
    bounds.push({
      name: row.name,
      mode: row.mode,
      rawMs: row.rawMs,
      httpFloorMs: http.allMs,
      httpFloorKind: http.kind,
      protocolFloorMs: protocol.floorMs,
      strictFloorMs: protocol.strictMs,
      engineOwnMs: protocol.engineMs,
      loadgenMs: row.loadgenMs,
      floorBound: boundOf(row.rawMs, http.allMs, protocol.floorMs),
      strictFloorBound: boundOf(row.rawMs, http.allMs, protocol.strictMs),
      engineBound: boundOf(row.rawMs, http.allMs, protocol.engineMs),
      ratioBound: boundOf(row.rawMs, http.allMs, protocol.strictMs, row.loadgenMs),
      rawBothK: k,
      contendedStrictBound: contendedBoundOf(row.rawMs, k, http.allMs, protocol.strictMs),
      share: row.rawMs / row.cpuMs,
      ratio: row.ratio,
    });
  }
  return bounds;
}

export const BOUNDS_HEADER =
  'bundle              mode                raw ms  HTTP floor ms  protocol floor ms  strict floor ms  engine own ms  floor bound  strict floor bound  engine bound  share  loadgen ms  ratio bound  ratio  raw ×both cores  contended strict bound';

const fixed = (n: number, digits: number, width: number) => n.toFixed(digits).padStart(width);
const percent = (n: number, width: number) => `${fixed(100 * n, 0, width)} %`;
const orNa = (n: number, width: number, show: (n: number) => string) =>
  Number.isNaN(n) ? 'n/a'.padStart(width) : show(n).padStart(width);

export function boundRow(b: ShareBound): string {
  const http = `${fixed(b.httpFloorMs, 3, 6)} ${b.httpFloorKind.padEnd(7)}`;
  return `${b.name.padEnd(19)} ${b.mode.padEnd(18)} ${fixed(b.rawMs, 2, 6)}  ${http} ${fixed(b.protocolFloorMs, 3, 18)} ${fixed(b.strictFloorMs, 3, 16)} ${fixed(b.engineOwnMs, 3, 14)} ${percent(b.floorBound, 10)} ${percent(b.strictFloorBound, 17)} ${percent(b.engineBound, 11)} ${percent(b.share, 4)} ${fixed(b.loadgenMs, 3, 11)} ${fixed(b.ratioBound, 2, 12)} ${fixed(b.ratio, 2, 6)} ${orNa(b.rawBothK, 16, (k) => `×${k.toFixed(3)}`)} ${orNa(b.contendedStrictBound, 22, (n) => percent(n, 0))}`;
}

/** What the bound table says, printed above it. */
export const BOUNDS_EXPLAINED = [
  'share bounds (same run; ms per bundle): floor bound = raw ÷ (raw + HTTP floor + protocol floor), strict floor',
  'bound = raw ÷ (raw + HTTP floor + strict floor): the most any verifier served over HTTP by Node could reach;',
  'engine bound = raw ÷ (raw + HTTP floor + engine own), the most ours could with everything but its engine at the',
  "floor. HTTP floor = the floor process, every thread (the third table's floor all, the lowest server; a batch row:",
  "its bundle's single-request floor ÷ bundles per request, a lower bound); protocol floor = reading the body + both",
  'bundle hashes; strict floor = reading the body + every step PROTOCOL/SPEC oblige besides signatures, cheapest',
  'primitive each (P116); engine own = verify() with signatures answered at once; these three in this process,',
  'one thread, CPU time (bench/protocol-floor.ts). ratio bound = raw ÷ (raw + HTTP floor + strict floor + loadgen):',
  "the most of the raw limit on all cores a verifier's throughput could reach with the load generator's CPU per",
  'bundle (this process, as measured in the row) taken from the same cores; ratio = what the row reached.',
  "raw ×both cores = k, the bundle's calls' CPU per round on two threads replaying at once ÷ on one thread alone",
  '(bench/contention-replay.ts, measured after its rows, per-thread CPU; P127): what each signature costs when both',
  'cores verify; contended strict bound = raw ÷ (raw·k + HTTP floor + strict floor). n/a: BENCH_CONTENTION=skip, or',
  "other processes kept over 0.25 cores busy in every round (BENCH_CONTENTION_ROUNDS × 3) of the bundle's k.",
].join('\n');

/** A V2 bundle of the run, as the protocol floor needs it. */
export interface BoundCase {
  readonly name: string;
  readonly json: string;
  readonly cbor: Buffer | undefined;
  /** In-process verify() and raw cost (ms): only to size the timed batches. */
  readonly engineMs: number;
  readonly rawMs: number;
}

/** Rounds per case, alternating JSON and CBOR (protocol-floor.ts runs 6 on its own). */
const PROTOCOL_FLOOR_ROUNDS = Number(process.env['BENCH_PROTOCOL_FLOOR_ROUNDS'] ?? 4);

/**
 * The protocol floors and the engine's own work of each wire in `wanted`, timed in this process after the rows
 * (warm from prepare(); a fresh process read the engine's own work higher, not lower, P116).
 */
export function measureProtocolFloors(
  backend: CryptoBackend,
  cases: readonly BoundCase[],
  wanted: readonly { name: string; wire: Wire }[],
): ProtocolFloor[] {
  const instant = instantVerifier(backend);
  const floors: ProtocolFloor[] = [];
  for (const c of cases) {
    const wires = [...new Set(wanted.filter((w) => w.name === c.name).map((w) => w.wire))];
    if (wires.length === 0) continue;
    const request = JSON.parse(c.json) as { signed_bundle: Record<string, unknown> };
    // A timed batch of about 60 ms of the engine's own work: long against the CPU clock's 10 ms ticks.
    const runs = Math.max(3, Math.min(150, Math.round(60 / Math.max(c.engineMs - c.rawMs, 0.05))));
    const bodies = { JSON: c.json, CBOR: c.cbor ?? new Uint8Array() };
    const floorCase = floorCaseOf(c.name, runs, request, bodies);
    for (const [wire, t] of measureFloorCase(floorCase, wires, PROTOCOL_FLOOR_ROUNDS, instant))
      floors.push({ name: c.name, wire, floorMs: t.floor, strictMs: t.strict, engineMs: t.engine });
  }
  return floors;
}
