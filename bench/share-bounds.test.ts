// The share bounds of `pnpm bench` (P114): the arithmetic, and which rows get a bound from which floors.
// Pure functions on given figures; what the floors cost is the benchmark's to say.
import { describe, expect, it } from 'vitest';
import {
  boundOf,
  boundRow,
  type HttpFloor,
  type ProtocolFloor,
  type RowCost,
  shareBounds,
  wireOfMode,
} from './share-bounds.ts';

const rows: RowCost[] = [
  { name: 'v2 elevated (10)', mode: 'json', rawMs: 3.56, cpuMs: 7.12 },
  { name: 'v2 elevated (10)', mode: 'cbor', rawMs: 3.66, cpuMs: 7.32 },
  { name: 'v2 elevated (10)', mode: 'batch ndjson×64', rawMs: 3.6, cpuMs: 6 },
  { name: 'v1 (10)', mode: 'json', rawMs: 0.08, cpuMs: 0.74 },
  { name: 'v2 maximum (60)', mode: 'json', rawMs: 16.29, cpuMs: 28 },
];
const httpFloors: HttpFloor[] = [
  { name: 'v2 elevated (10)', mode: 'json', kind: 'fastify', allMs: 0.34 },
  { name: 'v2 elevated (10)', mode: 'json', kind: 'node', allMs: 0.3 },
  { name: 'v2 elevated (10)', mode: 'cbor', kind: 'fastify', allMs: 0.4 },
  { name: 'v1 (10)', mode: 'json', kind: 'fastify', allMs: 0.2 },
];
const protocolFloors: ProtocolFloor[] = [
  { name: 'v2 elevated (10)', wire: 'JSON', floorMs: 0.34, engineMs: 1.1 },
  { name: 'v2 elevated (10)', wire: 'CBOR', floorMs: 0.56, engineMs: 1.4 },
  { name: 'v2 maximum (60)', wire: 'JSON', floorMs: 1.54, engineMs: 4 },
];

describe('share bounds', () => {
  it('raw ÷ (raw + the other costs)', () => {
    expect(boundOf(3.56, 0.34, 0.34)).toBeCloseTo(3.56 / 4.24, 12);
    expect(boundOf(16.29, 2.13, 1.54)).toBeCloseTo(16.29 / 19.96, 12);
    expect(boundOf(2)).toBe(1);
  });

  it('single-request modes have a wire, batch modes none', () => {
    expect(wireOfMode('json')).toBe('JSON');
    expect(wireOfMode('cbor')).toBe('CBOR');
    expect(wireOfMode('batch ndjson×64')).toBeUndefined();
    expect(wireOfMode('batch cbor-seq×64')).toBeUndefined();
  });

  const bounds = shareBounds(rows, httpFloors, protocolFloors);

  it('bounds only the rows that have both floors (no batch, no V1, no row without an HTTP floor)', () => {
    expect(bounds.map((b) => `${b.name} ${b.mode}`)).toStrictEqual([
      'v2 elevated (10) json',
      'v2 elevated (10) cbor',
    ]);
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

  it('prints the figures of the bound', () => {
    const line = boundRow(bounds[0]!);
    expect(line.startsWith('v2 elevated (10)    json')).toBe(true);
    expect(line).toContain(' 0.300 node');
    expect(line).toMatch(/ 85 % +72 % +50 %$/);
  });
});
