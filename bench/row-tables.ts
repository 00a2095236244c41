// The loads every bundle is measured under (POST /verify JSON and CBOR, POST /verify/batch NDJSON and CBOR
// sequence) and the lines of the first two service tables of `pnpm bench`. Issue 14.
import { BATCH_ITEMS, BATCH_MAX_BYTES, CORES, num } from './bench-settings.ts';
import type { Prepared } from './prepared-cases.ts';
import type { Load, Measured } from './row-measure.ts';

function batchBody(p: Prepared): { body: string; items: number } | undefined {
  const line = `${p.json}\n`;
  const items = Math.min(BATCH_ITEMS, Math.floor(BATCH_MAX_BYTES / Buffer.byteLength(line)));
  if (items < 2) return undefined;
  return { body: line.repeat(items), items };
}

/** RFC 8742: the CBOR items back to back. */
function cborSequenceBody(p: Prepared): { body: Buffer; items: number } | undefined {
  if (p.cbor === undefined) return undefined;
  const items = Math.min(BATCH_ITEMS, Math.floor(BATCH_MAX_BYTES / p.cbor.length));
  if (items < 2) return undefined;
  return { body: Buffer.concat(Array.from({ length: items }, () => p.cbor!)), items };
}

export function row(p: Prepared, mode: string, m: Measured): string {
  const limitAll = (1000 / p.rawMs) * CORES;
  return `${p.name.padEnd(19)} ${mode.padEnd(18)} ${num(m.bundlesPerSecond)} ${num(m.p50)} ${num(m.p99)} ${num(m.cpuPerBundle, 2, 14)} ${num(p.rawMs, 2, 7)} ${num((100 * p.rawMs) / m.cpuPerBundle, 0, 5)} % ${num(m.bundlesPerSecond / limitAll, 2, 17)} ${num(m.peakRssMb, 0, 12)} ${String(m.failures).padStart(8)}`;
}

/**
 * The second table: where the service's CPU per bundle goes by thread kind, what the load generator
 * took of the same cores, and the throughput ratio against the cores it left to the service.
 */
export const ACCOUNT_HEADER =
  'bundle              mode               CPU ms/verify  main ms  (/proc)  workers ms  other ms  loadgen ms  loadgen cores  share  sig/workers  ratio(cores left)';

export function accountRow(p: Prepared, mode: string, m: Measured): string {
  const other = m.cpuPerBundle - m.mainPerBundle - m.workersPerBundle;
  const limitLeft = (1000 / p.rawMs) * Math.max(CORES - m.loadgenCores, 0.01);
  return `${p.name.padEnd(19)} ${mode.padEnd(18)} ${num(m.cpuPerBundle, 2, 13)} ${num(m.mainPerBundle, 2)} ${num(m.mainProcPerBundle, 2)} ${num(m.workersPerBundle, 2, 11)} ${num(other, 2, 9)} ${num(m.loadgenPerBundle, 2, 11)} ${num(m.loadgenCores, 2, 14)} ${num((100 * p.rawMs) / m.cpuPerBundle, 0, 4)} % ${num((100 * p.rawMs) / m.workersPerBundle, 0, 10)} % ${num(m.bundlesPerSecond / limitLeft, 2, 18)}`;
}

export const jsonLoad = (p: Prepared): Load => ({
  path: '/verify',
  contentType: 'application/json',
  accept: 'application/json',
  body: p.json,
  perRequest: 1,
});

/** Every load a bundle is measured under: /verify JSON and CBOR, and the batch as NDJSON and a CBOR sequence. */
export function loadsOf(p: Prepared, batchAvailable: boolean): [string, Load][] {
  const loads: [string, Load][] = [['json', jsonLoad(p)]];
  if (p.cbor) {
    loads.push([
      'cbor',
      {
        path: '/verify',
        contentType: 'application/cbor',
        accept: 'application/cbor',
        body: p.cbor,
        perRequest: 1,
      },
    ]);
  }
  const batch = batchBody(p);
  if (batchAvailable && batch) {
    loads.push([
      `batch ndjson×${batch.items}`,
      {
        path: '/verify/batch',
        contentType: 'application/x-ndjson',
        accept: 'application/x-ndjson',
        body: batch.body,
        perRequest: batch.items,
      },
    ]);
  }
  const sequence = cborSequenceBody(p);
  if (batchAvailable && sequence) {
    loads.push([
      `batch cbor-seq×${sequence.items}`,
      {
        path: '/verify/batch',
        contentType: 'application/cbor-seq',
        accept: 'application/cbor-seq',
        body: sequence.body,
        perRequest: sequence.items,
      },
    ]);
  }
  return loads;
}
