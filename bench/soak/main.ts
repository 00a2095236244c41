// `pnpm soak`: the whole stack on PostgreSQL and Redis under a mixed load while a fault schedule kills and
// restarts everything; asserts no acknowledged write lost, no verdict changed, flat memory, alerts fired.
// Issue 16 item 5. Usage: pnpm soak [--duration 180] [--no-db-faults] [--down-seconds 10] [--rss-growth-mb 128] [--keep]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { rssMb } from '../proc-stats.ts';
import { checkWrites } from './checks.ts';
import { faultSchedule, restoreDependencies, runFaults } from './faults.ts';
import { newLedger, runLoad, sampleBundles } from './load.ts';
import { SoakPrometheus } from './prometheus.ts';
import { SERVICE_NAMES, type ServiceName, Stack } from './stack.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '180' },
    'no-db-faults': { type: 'boolean', default: false },
    'down-seconds': { type: 'string', default: '10' },
    'rss-growth-mb': { type: 'string', default: '128' },
    'alert-for-seconds': { type: 'string', default: '4' },
    keep: { type: 'boolean', default: false },
  },
});
const durationS = Number(args.duration);
const downSeconds = Number(args['down-seconds']);
const rssGrowthMb = Number(args['rss-growth-mb']);
if (!(durationS >= 60) || !(downSeconds > 0) || !(rssGrowthMb > 0)) {
  process.stderr.write(
    'usage: pnpm soak [--duration >=60] [--no-db-faults] [--down-seconds N] [--rss-growth-mb N]\n',
  );
  process.exit(2);
}
const postgresUrl = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const say = (line: string) => process.stdout.write(`[soak] ${line}\n`);

interface Row {
  readonly check: string;
  readonly result: string;
  readonly ok: boolean;
}

const workDir = mkdtempSync(join(tmpdir(), 'proto-soak-'));
const stack = new Stack(workDir, postgresUrl, redisUrl);
const prometheus = new SoakPrometheus(workDir);
const rows: Row[] = [];
const began = Date.now();

async function main(): Promise<void> {
  await stack.prepare();
  // The log and the revocation service first: the verification service is wired to their keys.
  for (const name of ['transparency-log', 'revocation', 'anchor'] as const) stack.start(name);
  for (const name of ['transparency-log', 'revocation', 'anchor'] as const) await stack.waitHealthy(name);
  await stack.wireVerification();
  stack.start('verification');
  await stack.waitHealthy('verification');
  await prometheus.start(stack, Number(args['alert-for-seconds']));
  say(
    `stack up in ${((Date.now() - began) / 1000).toFixed(1)} s (work dir ${workDir}); load for ${durationS} s`,
  );

  const ledger = newLedger();
  const bundles = sampleBundles();
  const loadStart = Date.now();
  const loadEnd = loadStart + durationS * 1000;
  const warmS = Math.min(300, Math.max(20, durationS * 0.15));
  const tailS = Math.max(25, durationS * 0.1);

  // RSS of whichever process currently serves each name, every 2 s.
  const samples = new Map<ServiceName, Array<{ t: number; mb: number }>>(SERVICE_NAMES.map((n) => [n, []]));
  const sampler = setInterval(() => {
    for (const name of SERVICE_NAMES) {
      const pid = stack.pid(name);
      if (pid === undefined) continue;
      try {
        const mb = rssMb(pid);
        // A killed process not yet reaped has no VmRSS.
        if (Number.isFinite(mb)) samples.get(name)!.push({ t: (Date.now() - loadStart) / 1000, mb });
      } catch {
        // exited between the check and the read
      }
    }
  }, 2000);

  dbFaultsOn = !args['no-db-faults'];
  const faults = faultSchedule(stack, { downSeconds, dbFaults: dbFaultsOn });
  const spacingMs = ((durationS - warmS - tailS) * 1000) / faults.length;
  const [, faultRuns] = await Promise.all([
    runLoad({ stack, ledger, bundles, until: () => Date.now() >= loadEnd }),
    runFaults(faults, loadStart + warmS * 1000, spacingMs),
  ]);
  clearInterval(sampler);
  say('load over; checking every acknowledged write');

  for (const name of SERVICE_NAMES) await stack.waitHealthy(name);
  rows.push({
    check: 'no service exited on its own (crashes are restarted, as a supervisor would)',
    result:
      stack.crashes.map((c) => `${c.name} ${c.how} at ${c.at.toISOString().slice(11, 19)}`).join(', ') ||
      'none',
    ok: stack.crashes.length === 0,
  });
  for (const row of await checkWrites(stack, ledger, 120_000)) {
    rows.push({
      check: `no write lost: ${row.what}`,
      result: `${row.confirmed}/${row.acknowledged} found${row.note ? `; ${row.note}` : ''}`,
      ok: row.lost === 0 && row.acknowledged > 0,
    });
  }
  const unack = Object.entries(ledger.unacknowledged)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  rows.push({ check: 'writes refused or unanswered during faults (not counted)', result: unack, ok: true });

  const v = ledger.verify;
  rows.push({
    check: 'no verdict changed by a fault',
    result:
      `valid→verified ${v.validOk}, invalid→rejected ${v.invalidOk}, valid→retryable only ${v.retryableFalse}, ` +
      `no verdict (refused/5xx) ${v.unavailable}` +
      (v.violations.length
        ? `; VIOLATIONS ${v.violations.length}: ${[...new Set(v.violations)].slice(0, 3).join(' | ')}`
        : ''),
    ok: v.violations.length === 0 && v.validOk > 0 && v.invalidOk > 0,
  });

  for (const name of SERVICE_NAMES) {
    const series = samples.get(name)!;
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    // Baseline: the 10 s before the first fault (the end of warm-up); bound: the peak of every later
    // process serving the name (a restarted one included), so a leak in any of them shows.
    const baseline = mean(series.filter((s) => s.t >= warmS - 10 && s.t <= warmS).map((s) => s.mb));
    const last = series.at(-1)?.t ?? 0;
    const final = mean(series.filter((s) => s.t >= last - 10).map((s) => s.mb));
    const peak = Math.max(...series.filter((s) => s.t >= warmS).map((s) => s.mb));
    const growth = peak - baseline;
    rows.push({
      check: `memory flat after warm-up: ${name} (RSS peak ≤ baseline + ${rssGrowthMb} MB)`,
      result: `baseline ${baseline.toFixed(0)} MB, peak ${peak.toFixed(0)}, at the end ${final.toFixed(0)} (${stack.services.get(name)!.restarts} restart)`,
      ok: Number.isFinite(growth) && growth <= rssGrowthMb,
    });
  }

  // Rule evaluation lags the fault by a scrape, the `for:` and an evaluation: look a little past its end.
  const slack = Number(args['alert-for-seconds']) + 20;
  await new Promise((resolve) => setTimeout(resolve, 2000));
  for (const run of faultRuns) {
    const missing: string[] = [];
    for (const selector of run.fault.expect) {
      if (!(await prometheus.firedBetween(selector, run.start, run.end + slack))) missing.push(selector);
    }
    const seen = await prometheus.alertsBetween(run.start, run.end + slack);
    rows.push({
      check: `alert fired: ${run.fault.name}`,
      result:
        (run.error ? `FAULT FAILED: ${run.error}; ` : '') +
        (missing.length ? `missing ${missing.join(' ')}; ` : '') +
        `firing: ${seen.join(' ') || 'none'}`,
      ok: missing.length === 0 && run.error === undefined,
    });
  }
  const totalS = (Date.now() - began) / 1000;
  rows.push({
    check: 'run',
    result: `load ${durationS} s, ${faultRuns.length} faults ${(spacingMs / 1000).toFixed(0)} s apart, end to end ${totalS.toFixed(0)} s`,
    ok: true,
  });
}

function printTable(): void {
  const out = ['| check | result | |', '|---|---|---|'];
  for (const row of rows) out.push(`| ${row.check} | ${row.result} | ${row.ok ? 'PASS' : 'FAIL'} |`);
  process.stdout.write(`\n${out.join('\n')}\n\n`);
}

// Interrupted mid-fault: PostgreSQL and Redis must not stay down for everyone else.
let dbFaultsOn = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (dbFaultsOn) restoreDependencies();
    stack.killAllNow();
    prometheus.killNow();
    stack.dropDatabases();
    process.stdout.write(`[soak] interrupted; logs kept in ${workDir}\n`);
    process.exit(130);
  });
}

let failed = false;
try {
  await main();
} catch (error) {
  failed = true;
  process.stderr.write(`[soak] aborted: ${error instanceof Error ? error.stack : String(error)}\n`);
} finally {
  if (dbFaultsOn) restoreDependencies();
  await prometheus.stop().catch(() => undefined);
  await stack.stopAll();
  stack.dropDatabases();
}
printTable();
failed ||= rows.some((row) => !row.ok);
if (failed || args.keep) say(`logs kept in ${workDir}`);
else rmSync(workDir, { recursive: true, force: true });
say(failed ? 'FAILED' : 'passed');
process.exit(failed ? 1 : 0);
