// The share bounds of `pnpm bench` (P114, P116, P127): the arithmetic, and which rows get a bound from which floors.
// Pure functions on given figures; what the floors cost is the benchmark's to say.
import { describe, expect, it } from 'vitest';
import {
  boundOf,
  boundRow,
  bundleWireOfMode,
  contendedBoundOf,
  type HttpFloor,
  type ProtocolFloor,
  type RowCost,
  shareBounds,
  wireOfMode,
} from './share-bounds.ts';

const row = (name: string, mode: string, rawMs: number, cpuMs: number, perRequest = 1): RowCost => ({
  name,
  mode,
  rawMs,
  cpuMs,
  loadgenMs: perRequest === 1 ? 0.5 : 0.04,
  perRequest,
  ratio: 0.4,
});
const rows: RowCost[] = [
  row('v2 elevated (10)', 'json', 3.56, 7.12),
  row('v2 elevated (10)', 'cbor', 3.66, 7.32),
  row('v2 elevated (10)', 'batch ndjson×64', 3.6, 6, 64),
  row('v2 elevated (10)', 'batch cbor-seq×64', 3.6, 6.2, 64),
  row('v1 (10)', 'json', 0.08, 0.74),
  row('v2 maximum (60)', 'json', 16.29, 28),
  row('v2 maximum (60)', 'batch ndjson×20', 16.29, 26, 20),
];
const httpFloors: HttpFloor[] = [
  { name: 'v2 elevated (10)', mode: 'json', kind: 'fastify', allMs: 0.34 },
  { name: 'v2 elevated (10)', mode: 'json', kind: 'node', allMs: 0.3 },
  { name: 'v2 elevated (10)', mode: 'cbor', kind: 'fastify', allMs: 0.4 },
  { name: 'v1 (10)', mode: 'json', kind: 'fastify', allMs: 0.2 },
];
const protocolFloors: ProtocolFloor[] = [
  { name: 'v2 elevated (10)', wire: 'JSON', floorMs: 0.34, strictMs: 0.6, engineMs: 1.1 },
  { name: 'v2 elevated (10)', wire: 'CBOR', floorMs: 0.56, strictMs: 0.8, engineMs: 1.4 },
  { name: 'v2 maximum (60)', wire: 'JSON', floorMs: 1.54, strictMs: 3, engineMs: 4 },
];

describe('share bounds', () => {
  it('raw ÷ (raw + the other costs)', () => {
    expect(boundOf(3.56, 0.34, 0.34)).toBeCloseTo(3.56 / 4.24, 12);
    expect(boundOf(16.29, 2.13, 1.54)).toBeCloseTo(16.29 / 19.96, 12);
    expect(boundOf(2)).toBe(1);
  });

  it('raw ÷ (raw·k + the other costs): k scales the raw cost in the denominator only', () => {
    expect(contendedBoundOf(3.56, 1.1, 0.3, 0.6)).toBeCloseTo(3.56 / (3.56 * 1.1 + 0.3 + 0.6), 12);
    expect(contendedBoundOf(3.56, 1, 0.3, 0.6)).toBeCloseTo(boundOf(3.56, 0.3, 0.6), 12);
    expect(contendedBoundOf(2, 1.25)).toBeCloseTo(0.8, 12);
  });

  it('single-request modes have a wire, batch modes none; each bundle of a batch is read in its wire', () => {
    expect(wireOfMode('json')).toBe('JSON');
    expect(wireOfMode('cbor')).toBe('CBOR');
    expect(wireOfMode('batch ndjson×64')).toBeUndefined();
    expect(wireOfMode('batch cbor-seq×64')).toBeUndefined();
    expect(bundleWireOfMode('batch ndjson×64')).toBe('JSON');
    expect(bundleWireOfMode('batch cbor-seq×26')).toBe('CBOR');
    expect(bundleWireOfMode('cbor')).toBe('CBOR');
  });

  const bounds = shareBounds(rows, httpFloors, protocolFloors);

  it('bounds only the rows that have both floors (no V1, no row whose bundle has no HTTP floor)', () => {
    expect(bounds.map((b) => `${b.name} ${b.mode}`)).toStrictEqual([
      'v2 elevated (10) json',
      'v2 elevated (10) cbor',
      'v2 elevated (10) batch ndjson×64',
      'v2 elevated (10) batch cbor-seq×64',
    ]);
  });

  it("gives a batch row its bundle's single-request floor of the same wire ÷ bundles per request", () => {
    const [, , ndjson, sequence] = bounds;
    expect(ndjson).toMatchObject({ httpFloorKind: 'node', strictFloorMs: 0.6, loadgenMs: 0.04 });
    expect(ndjson!.httpFloorMs).toBeCloseTo(0.3 / 64, 12);
    expect(sequence!.httpFloorMs).toBeCloseTo(0.4 / 64, 12);
    expect(sequence!.strictFloorMs).toBe(0.8);
    expect(ndjson!.ratioBound).toBeCloseTo(3.6 / (3.6 + 0.3 / 64 + 0.6 + 0.04), 12);
  });

  it('the ratio bound takes the load generator per bundle from the same cores as the strict floor bound', () => {
    const [json] = bounds;
    expect(json!.strictFloorBound).toBeCloseTo(3.56 / (3.56 + 0.3 + 0.6), 12);
    expect(json!.ratioBound).toBeCloseTo(3.56 / (3.56 + 0.3 + 0.6 + 0.5), 12);
    expect(json!.ratioBound).toBeLessThan(json!.strictFloorBound);
    expect(json!.ratio).toBe(0.4);
  });

  it("takes the lowest HTTP floor measured for the row and the protocol floor of the row's wire", () => {
    const [json, cbor] = bounds;
    expect(json).toMatchObject({
      httpFloorMs: 0.3,
      httpFloorKind: 'node',
      protocolFloorMs: 0.34,
      engineOwnMs: 1.1,
    });
    expect(json!.floorBound).toBeCloseTo(3.56 / (3.56 + 0.3 + 0.34), 12);
    expect(json!.engineBound).toBeCloseTo(3.56 / (3.56 + 0.3 + 1.1), 12);
    expect(json!.share).toBeCloseTo(0.5, 12);
    expect(cbor).toMatchObject({
      httpFloorMs: 0.4,
      httpFloorKind: 'fastify',
      protocolFloorMs: 0.56,
      engineOwnMs: 1.4,
    });
    expect(cbor!.floorBound).toBeCloseTo(3.66 / (3.66 + 0.4 + 0.56), 12);
  });

  it("takes each row's k from its bundle's contention, NaN for a bundle not measured", () => {
    const contended = shareBounds(rows, httpFloors, protocolFloors, [
      { name: 'v2 elevated (10)', k: 1.1 },
      { name: 'v2 routine (10)', k: 1.5 },
    ]);
    const [json, cbor, ndjson] = contended;
    expect(json!.rawBothK).toBe(1.1);
    expect(json!.contendedStrictBound).toBeCloseTo(3.56 / (3.56 * 1.1 + 0.3 + 0.6), 12);
    expect(json!.contendedStrictBound).toBeLessThan(json!.strictFloorBound);
    expect(cbor!.contendedStrictBound).toBeCloseTo(3.66 / (3.66 * 1.1 + 0.4 + 0.8), 12);
    expect(ndjson!.contendedStrictBound).toBeCloseTo(3.6 / (3.6 * 1.1 + 0.3 / 64 + 0.6), 12);
    expect(json!.strictFloorBound).toBe(bounds[0]!.strictFloorBound);
    expect(bounds[0]!.rawBothK).toBeNaN();
    expect(bounds[0]!.contendedStrictBound).toBeNaN();
  });

  it('prints the figures of the bound, and n/a for k and the contended bound when not measured', () => {
    const line = boundRow(bounds[0]!);
    expect(line.startsWith('v2 elevated (10)    json')).toBe(true);
    expect(line).toContain(' 0.300 node');
    expect(line).toMatch(/ 85 % +80 % +72 % +50 % +0\.500 +0\.72 +0\.40 +n\/a +n\/a$/);
    const [contended] = shareBounds(rows, httpFloors, protocolFloors, [{ name: 'v2 elevated (10)', k: 1.1 }]);
    expect(boundRow(contended!)).toMatch(/ 0\.72 +0\.40 +×1\.100 +74 %$/);
  });
});
