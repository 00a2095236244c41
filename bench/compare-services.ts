// Service variants against the same load in one `pnpm bench` run, alternating (issue 14, issue 15, P99):
// the key directory on and off, VERIFY_WORKERS settings, another build, environments, log levels.
import type { CryptoBackend } from '@proto/core';
import { startService, stopService, warmUp } from './bench-service.ts';
import { KEY_DIRECTORY_CASE, MAIN, MAIN_WITHOUT_RECORDS, ROUNDS } from './bench-settings.ts';
import { overBodyLimit, type Prepared } from './prepared-cases.ts';
import { measureWithRaw } from './raw-replay.ts';
import { type Load, type Measured, measure } from './row-measure.ts';
import { ACCOUNT_HEADER, accountRow, jsonLoad, loadsOf, row } from './row-tables.ts';

export interface Variant {
  readonly label: string;
  readonly entry: string;
  readonly workers?: string;
  readonly logLevel?: string;
  /** Variables for this variant's service only (BENCH_COMPARE_ENV). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The same tier and load against service variants, alternating them (A B … A B …, BENCH_COMPARE_ROUNDS
 * rounds) so the drift of a shared machine falls on every side; prints each variant's mean row, its
 * ratios to the first, and every run's CPU and peak RSS (the spread the means hide).
 */
export async function compareServices(
  backend: CryptoBackend,
  measuredCase: Prepared,
  title: string,
  variants: readonly Variant[],
  connections: number,
  load: [string, Load] = ['json', jsonLoad(measuredCase)],
) {
  const [mode, requests] = load;
  console.log(
    `\n${title} (${measuredCase.name}, ${mode}, ${variants.map((v) => v.label).join(' / ')} alternating, ${ROUNDS} rounds):`,
  );
  const runs = new Map<string, Measured[]>(variants.map((v) => [v.label, []]));
  const raws: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of variants) {
      const { child, url } = await startService(
        variant.entry,
        variant.workers,
        variant.logLevel,
        variant.env,
      );
      try {
        // Every variant's service is fresh: warmed as the table's is, or its JIT and thread start land in the run.
        await warmUp(url, measuredCase.json, connections);
        const { measured, rawMs } = await measureWithRaw(
          backend,
          measuredCase.calls,
          () => measure(child.pid!, url, requests, connections),
          child.pid,
        );
        runs.get(variant.label)!.push(measured);
        raws.push(rawMs);
      } finally {
        await stopService(child);
      }
    }
  }
  const mean = (ms: readonly Measured[], f: (m: Measured) => number) =>
    ms.reduce((a, m) => a + f(m), 0) / ms.length;
  const base = runs.get(variants[0]!.label)!;
  // The raw cost as the machine was across all of this comparison's runs.
  const p: Prepared = { ...measuredCase, rawMs: raws.reduce((a, r) => a + r, 0) / raws.length };
  const accounts: string[] = [];
  for (const variant of variants) {
    const ms = runs.get(variant.label)!;
    const merged: Measured = {
      bundlesPerSecond: mean(ms, (m) => m.bundlesPerSecond),
      p50: mean(ms, (m) => m.p50),
      p99: mean(ms, (m) => m.p99),
      cpuPerBundle: mean(ms, (m) => m.cpuPerBundle),
      mainPerBundle: mean(ms, (m) => m.mainPerBundle),
      mainProcPerBundle: mean(ms, (m) => m.mainProcPerBundle),
      workersPerBundle: mean(ms, (m) => m.workersPerBundle),
      loadgenPerBundle: mean(ms, (m) => m.loadgenPerBundle),
      loadgenCores: mean(ms, (m) => m.loadgenCores),
      peakRssMb: Math.max(...ms.map((m) => m.peakRssMb)),
      failures: ms.reduce((a, m) => a + m.failures, 0),
    };
    const throughput = merged.bundlesPerSecond / mean(base, (m) => m.bundlesPerSecond);
    const cpu = merged.cpuPerBundle / mean(base, (m) => m.cpuPerBundle);
    console.log(`${row(p, variant.label, merged)}   ×${throughput.toFixed(3)} req/s, ×${cpu.toFixed(3)} CPU`);
    accounts.push(accountRow(p, variant.label, merged));
  }
  console.log(ACCOUNT_HEADER);
  for (const line of accounts) console.log(line);
  console.log('each run, in order: CPU ms/verify (workers ms), peak RSS MB');
  for (const variant of variants) {
    const each = runs
      .get(variant.label)!
      .map(
        (m) => `${m.cpuPerBundle.toFixed(2)} (${m.workersPerBundle.toFixed(2)}), ${m.peakRssMb.toFixed(0)}`,
      );
    console.log(`  ${variant.label.padEnd(18)} ${each.join(' | ')}`);
  }
}

/**
 * The comparisons after the table, each against the same elevated-tier load unless said otherwise: the key
 * directory on and off always, and those the BENCH_COMPARE_* variables ask for.
 */
export async function runComparisons(
  backend: CryptoBackend,
  prepared: readonly Prepared[],
  connections: number,
): Promise<void> {
  const pairCase = prepared.find((p) => p.name === KEY_DIRECTORY_CASE);
  if (pairCase !== undefined && process.env['BENCH_KEY_DIRECTORY'] !== 'skip') {
    // Issue 15: the service with the /v2 records (key directory fed by every verdict) and without them.
    await compareServices(
      backend,
      pairCase,
      'key directory on vs off',
      [
        { label: 'key dir on', entry: MAIN },
        { label: 'key dir off', entry: MAIN_WITHOUT_RECORDS },
      ],
      connections,
    );
  }
  // Issue 14: VERIFY_WORKERS=1,2,3 (BENCH_COMPARE_WORKERS) under the same load, load generator on the same cores.
  const workerCounts = process.env['BENCH_COMPARE_WORKERS'];
  if (pairCase !== undefined && workerCounts !== undefined) {
    await compareServices(
      backend,
      pairCase,
      'VERIFY_WORKERS compared',
      workerCounts.split(',').map((n) => ({ label: `workers ${n.trim()}`, entry: MAIN, workers: n.trim() })),
      connections,
    );
  }
  // Issue 14: this service against another build of it (BENCH_COMPARE_ENTRY: its main.ts, e.g. in a
  // worktree of main), every case and load of the run, alternating; BENCH_TABLE=skip leaves out the table.
  const otherEntry = process.env['BENCH_COMPARE_ENTRY'];
  if (otherEntry !== undefined) {
    for (const p of prepared.filter((c) => !overBodyLimit(c))) {
      // BENCH_COMPARE_LOAD: only the loads whose name holds this text (e.g. `ndjson`).
      const onlyLoad = process.env['BENCH_COMPARE_LOAD'];
      for (const load of loadsOf(p, true).filter(
        ([name]) => onlyLoad === undefined || name.includes(onlyLoad),
      )) {
        await compareServices(
          backend,
          p,
          'other build vs this one',
          [
            { label: 'other', entry: otherEntry },
            { label: 'this', entry: MAIN },
          ],
          load[1].perRequest > 1 ? 2 : connections,
          load,
        );
      }
    }
  }
  // P99: the same service under other environments (label:K=V,K=V;…), e.g. V8 heap settings:
  // BENCH_COMPARE_ENV='default:;again:;semi 16:NODE_OPTIONS=--max-semi-space-size=16' (a second
  // default is the same-vs-same control). A value cannot hold a comma.
  const envVariants = process.env['BENCH_COMPARE_ENV'];
  if (pairCase !== undefined && envVariants !== undefined) {
    await compareServices(
      backend,
      pairCase,
      'environments compared',
      envVariants.split(';').map((variant) => {
        const [label = '', assignments = ''] = variant.split(':');
        const env = Object.fromEntries(
          assignments
            .split(',')
            .filter((a) => a.includes('='))
            .map((a) => [a.slice(0, a.indexOf('=')).trim(), a.slice(a.indexOf('=') + 1).trim()]),
        );
        return { label: label.trim(), entry: MAIN, env };
      }),
      connections,
    );
  }
  // Issue 14: what request logging at info costs, against warn (no request lines).
  if (pairCase !== undefined && process.env['BENCH_COMPARE_LOG'] !== undefined) {
    await compareServices(
      backend,
      pairCase,
      'request logging compared',
      [
        { label: 'LOG_LEVEL=info', entry: MAIN, logLevel: 'info' },
        { label: 'LOG_LEVEL=warn', entry: MAIN, logLevel: 'warn' },
      ],
      connections,
    );
  }
}
