// `pnpm soak`: the whole stack on PostgreSQL and Redis under a mixed load while a fault schedule kills and
// restarts everything; asserts no acknowledged write lost, no verdict changed, flat memory, alerts fired.
// Issue 16 item 5. Usage: pnpm soak [--duration 180] [--no-db-faults] [--down-seconds 10] [--memory-growth-mb 32] [--rss-ceiling-mb 480] [--keep]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { rssMb } from '../proc-stats.ts';
import { checkWrites } from './checks.ts';
import { OwnPostgres, OwnRedis } from './dependencies.ts';
import { faultSchedule, runFaults } from './faults.ts';
import { newLedger, runLoad, sampleBundles } from './load.ts';
import { judgeMemory, type RssSample } from './memory.ts';
import { SoakPrometheus } from './prometheus.ts';
import { SERVICE_NAMES, type ServiceName, Stack } from './stack.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '180' },
    'no-db-faults': { type: 'boolean', default: false },
    'down-seconds': { type: 'string', default: '10' },
    'memory-growth-mb': { type: 'string', default: '32' },
    'rss-ceiling-mb': { type: 'string', default: '480' },
    'alert-for-seconds': { type: 'string', default: '4' },
    keep: { type: 'boolean', default: false },
  },
});
const durationS = Number(args.duration);
const downSeconds = Number(args['down-seconds']);
const memoryGrowthMb = Number(args['memory-growth-mb']);
const rssCeilingMb = Number(args['rss-ceiling-mb']);
if (!(durationS >= 60) || !(downSeconds > 0) || !(memoryGrowthMb > 0) || !(rssCeilingMb > 0)) {
  process.stderr.write(
    'usage: pnpm soak [--duration >=60] [--no-db-faults] [--down-seconds N] [--memory-growth-mb N] [--rss-ceiling-mb N]\n',
  );
  process.exit(2);
}
const say = (line: string) => process.stdout.write(`[soak] ${line}\n`);

interface Row {
  readonly check: string;
  readonly result: string;
  readonly ok: boolean;
}

const workDir = mkdtempSync(join(tmpdir(), 'proto-soak-'));
// Its own PostgreSQL cluster and Redis server: the faults never reach the machine's shared ones.
const postgres = new OwnPostgres(workDir);
const redis = new OwnRedis();
let soakStack: Stack | undefined;
const prometheus = new SoakPrometheus(workDir);
const rows: Row[] = [];
const began = Date.now();

async function main(): Promise<void> {
  await postgres.init();
  await postgres.start();
  await redis.start();
  const stack = new Stack(workDir, postgres.url, redis.url);
  soakStack = stack;
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
  const samples = new Map<ServiceName, RssSample[]>(SERVICE_NAMES.map((n) => [n, []]));
  const sampler = setInterval(() => {
    for (const name of SERVICE_NAMES) {
      const pid = stack.pid(name);
      if (pid === undefined) continue;
      try {
        const mb = rssMb(pid);
        // A killed process not yet reaped has no VmRSS.
        if (Number.isFinite(mb)) samples.get(name)!.push({ t: (Date.now() - loadStart) / 1000, mb, pid });
      } catch {
        // exited between the check and the read
      }
    }
  }, 2000);

  const faults = faultSchedule(stack, {
    downSeconds,
    dbFaults: !args['no-db-faults'],
    postgres,
    redis,
  });
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
    // The heap floor: heapUsed at its lowest in each 30 s window (live data after the collections in it).
    const heap = await prometheus.range(
      `min_over_time(nodejs_heap_size_used_bytes{job="${name}"}[30s])`,
      loadStart / 1000,
      loadEnd / 1000,
    );
    const verdict = judgeMemory(
      samples.get(name)!,
      heap.map(([t, bytes]) => ({ t: t - loadStart / 1000, mb: bytes / 1048576 })),
      { growthMb: memoryGrowthMb, ceilingMb: rssCeilingMb, warmupS: 20, rssPlateauAfterS: 240 },
    );
    rows.push({
      check: `memory: ${name} (${stack.services.get(name)!.restarts} restart)`,
      result: verdict.result,
      ok: verdict.ok,
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

// Interrupted: nothing the soak started may outlive it.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    soakStack?.killAllNow();
    prometheus.killNow();
    redis.stopNow();
    postgres.stopQuietly();
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
  await prometheus.stop().catch(() => undefined);
  await soakStack?.stopAll();
  redis.stopNow();
  postgres.stopQuietly();
}
printTable();
failed ||= rows.some((row) => !row.ok);
if (failed || args.keep) say(`logs kept in ${workDir}`);
else rmSync(workDir, { recursive: true, force: true });
say(failed ? 'FAILED' : 'passed');
process.exit(failed ? 1 : 0);
