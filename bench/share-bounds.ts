// The share bounds of `pnpm bench`, from figures of the same run (issue 14's "why it cannot go", P114): for
// each single-request row that has both an HTTP floor and a protocol floor,
//   floor bound  = raw ÷ (raw + HTTP floor + protocol floor)
//   engine bound = raw ÷ (raw + HTTP floor + the engine's own work, signatures answered at once),
// the most a verifier could reach with its HTTP side at the floor and its engine at the protocol floor, or
// at our engine's own cost. The arithmetic and the row matching are pure; the protocol floors are timed here
// with bench/protocol-floor.ts's own loop.
import type { CryptoBackend } from '@proto/core';
import { instantVerifier } from './engine-cases.ts';
import type { FloorKind } from './http-floor.ts';
import { floorCaseOf, measureFloorCase, type Wire } from './protocol-floor.ts';

/** A measured single-request row: its raw signature cost and service CPU per verify (ms). */
export interface RowCost {
  readonly name: string;
  readonly mode: string;
  readonly rawMs: number;
  readonly cpuMs: number;
}

/** An HTTP floor next to a row: the floor process's CPU per request, every thread (ms). */
export interface HttpFloor {
  readonly name: string;
  readonly mode: string;
  readonly kind: FloorKind;
  readonly allMs: number;
}

/** In-process, one thread (ms): the protocol floor and the engine with signatures answered at once. */
export interface ProtocolFloor {
  readonly name: string;
  readonly wire: Wire;
  readonly floorMs: number;
  readonly engineMs: number;
}

export interface ShareBound {
  readonly name: string;
  readonly mode: string;
  readonly rawMs: number;
  /** The lowest HTTP floor measured for the row, and which server it was. */
  readonly httpFloorMs: number;
  readonly httpFloorKind: FloorKind;
  readonly protocolFloorMs: number;
  readonly engineOwnMs: number;
  readonly floorBound: number;
  readonly engineBound: number;
  /** raw ÷ service CPU per verify: what the row reached. */
  readonly share: number;
}

/** The wire a single-request mode sends; undefined for batch modes. */
export function wireOfMode(mode: string): Wire | undefined {
  if (mode === 'json') return 'JSON';
  if (mode === 'cbor') return 'CBOR';
  return undefined;
}

/** raw ÷ (raw + everything else a request costs at least): the highest share those costs leave. */
export function boundOf(rawMs: number, ...otherMs: readonly number[]): number {
  return rawMs / otherMs.reduce((sum, ms) => sum + ms, rawMs);
}

/**
 * One bound per row that has an HTTP floor (the lowest, when several servers were measured: a bound must
 * not be lowered by a slower server) and a protocol floor of its bundle and wire; other rows get none.
 */
export function shareBounds(
  rows: readonly RowCost[],
  httpFloors: readonly HttpFloor[],
  protocolFloors: readonly ProtocolFloor[],
): ShareBound[] {
  const bounds: ShareBound[] = [];
  for (const row of rows) {
    const wire = wireOfMode(row.mode);
    if (wire === undefined) continue;
    const http = httpFloors
      .filter((f) => f.name === row.name && f.mode === row.mode)
      .reduce<HttpFloor | undefined>(
        (low, f) => (low === undefined || f.allMs < low.allMs ? f : low),
        undefined,
      );
    const protocol = protocolFloors.find((f) => f.name === row.name && f.wire === wire);
    if (http === undefined || protocol === undefined) continue;
    bounds.push({
      name: row.name,
      mode: row.mode,
      rawMs: row.rawMs,
      httpFloorMs: http.allMs,
      httpFloorKind: http.kind,
      protocolFloorMs: protocol.floorMs,
      engineOwnMs: protocol.engineMs,
      floorBound: boundOf(row.rawMs, http.allMs, protocol.floorMs),
      engineBound: boundOf(row.rawMs, http.allMs, protocol.engineMs),
      share: row.rawMs / row.cpuMs,
    });
  }
  return bounds;
}

export const BOUNDS_HEADER =
  'bundle              mode   raw ms  HTTP floor ms  protocol floor ms  engine own ms  floor bound  engine bound  share';

const fixed = (n: number, digits: number, width: number) => n.toFixed(digits).padStart(width);

export function boundRow(b: ShareBound): string {
  const http = `${fixed(b.httpFloorMs, 3, 6)} ${b.httpFloorKind.padEnd(7)}`;
  return `${b.name.padEnd(19)} ${b.mode.padEnd(6)} ${fixed(b.rawMs, 2, 6)}  ${http} ${fixed(b.protocolFloorMs, 3, 18)} ${fixed(b.engineOwnMs, 3, 14)} ${fixed(100 * b.floorBound, 0, 10)} % ${fixed(100 * b.engineBound, 0, 11)} % ${fixed(100 * b.share, 0, 4)} %`;
}

/** What the bound table says, printed above it. */
export const BOUNDS_EXPLAINED = [
  'share bounds (same run; ms per request): floor bound = raw ÷ (raw + HTTP floor + protocol floor), the most any',
  'verifier served over HTTP by Node could reach; engine bound = raw ÷ (raw + HTTP floor + engine own), the most',
  'ours could with everything but its engine at the floor. HTTP floor = the floor process, every thread (the third',
  "table's floor all, the lowest server); protocol floor = reading the body + both bundle hashes, engine own =",
  'verify() with signatures answered at once, both in this process, one thread, CPU time (bench/protocol-floor.ts).',
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

/** The protocol floor and the engine's own work of each wire in `wanted`, timed in this process. */
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
    for (const [wire, { floor, engine }] of measureFloorCase(
      floorCase,
      wires,
      PROTOCOL_FLOOR_ROUNDS,
      instant,
    ))
      floors.push({ name: c.name, wire, floorMs: floor, engineMs: engine });
  }
  return floors;
}
