// P391: a witness that is down was asked again at every checkpoint round (CHECKPOINT_INTERVAL_MS, 1 s by default) and
// every failed ask wrote a warn line: an operator read one line per witness per second for as long as it was down.
// Now the log backs off (doubling from the checkpoint interval up to LOG_WITNESS_RETRY_MAX_MS), logs the state
// change once ("down"), a reminder every LOG_WITNESS_DOWN_LOG_INTERVAL_MS ("still down"), and once when it answers
// again ("back up"), and exports proto_log_witness_up. The real log as a child process (src/main.ts), the real
// witness service, real time.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TempDir } from '@proto/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { TRANSPARENCY_LOG_ENV } from '../src/config.ts';
import { logWitnessesEnv, startWitness, testLogIdentity } from '../src/test-helpers.ts';
import { TEST_OPERATOR_TOKEN, tempDataDir } from '../src/test-support.ts';
import { witnessId } from '../src/witness-config.ts';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly witness?: string;
  readonly [key: string]: unknown;
}

interface RunningLog {
  readonly url: string;
  readonly lines: LogLine[];
  stop(): Promise<void>;
}

function startLog(env: Record<string, string>): Promise<RunningLog> {
  // Only what this test sets: an inherited DATABASE_URL (or key, token…) would change which log starts.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !(name in TRANSPARENCY_LOG_ENV) && name !== 'TEST_DATABASE_URL',
    ),
  );
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    env: { ...inherited, PROBE_REUSE_MS: '0', ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let buffered = '';
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`log did not start: ${stderr}`)), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (;;) {
        const newline = buffered.indexOf('\n');
        if (newline < 0) break;
        const text = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        let entry: LogLine & { address?: string };
        try {
          entry = JSON.parse(text) as LogLine & { address?: string };
        } catch {
          continue;
        }
        lines.push(entry);
        if (typeof entry.address === 'string') {
          clearTimeout(timer);
          resolve({
            url: entry.address,
            lines,
            stop: async () => {
              child.kill('SIGTERM');
              await exited;
            },
          });
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`log exited with ${code} before listening: ${stderr}`));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function metric(body: string, name: string, witness: string, extra = ''): number | undefined {
  const escaped = witness.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const match = new RegExp(`^${name}\\{witness="${escaped}"${extra}\\} (\\S+)$`, 'm').exec(body);
  return match === null ? undefined : Number(match[1]);
}

describe('P391: a witness that is down, over the real processes', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });
  async function dir(label: string): Promise<TempDir> {
    const made = await tempDataDir(label);
    cleanups.push(() => made.remove());
    return made;
  }

  it('is retried with backoff, logged once down, reminded, logged once back up, and exported as a metric', async () => {
    const identity = testLogIdentity('log.test/witness-down-backoff');
    const witnessDir = (await dir('backoff-witness')).dir;
    // The witness's port and key, then it goes down before the log starts.
    const first = await startWitness(witnessDir, 'witness.test/backoff', [identity]);
    const { port, url, vkey, key } = first;
    await first.close();
    const id = witnessId(key);

    const log = await startLog({
      ...identity.env,
      DATA_DIR: (await dir('backoff-log')).dir,
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      ADD_RATE_LIMIT_PER_MINUTE: '0',
      CHECKPOINT_INTERVAL_MS: '100',
      LOG_WITNESSES: logWitnessesEnv([{ url, vkey }]),
      LOG_WITNESS_TIMEOUT_MS: '500',
      LOG_WITNESS_RETRY_MAX_MS: '800',
      LOG_WITNESS_DOWN_LOG_INTERVAL_MS: '2000',
    });
    cleanups.push(() => log.stop());

    // 4.5 s down at 100 ms rounds: 45 rounds.
    await sleep(4500);
    const ofWitness = () => log.lines.filter((l) => l.witness === id);
    const warns = ofWitness().filter((l) => l.level >= 40);
    const metricsDown = await (await fetch(`${log.url}/metrics`)).text();
    const attempts =
      metric(metricsDown, 'proto_log_witness_submissions_total', id, ',outcome="unavailable"') ?? 0;
    // Before P391: about 45 asks and 45 warn lines "witness not reached; next round".
    expect(attempts, 'asks while down').toBeGreaterThanOrEqual(3);
    expect(attempts, 'asks while down').toBeLessThanOrEqual(12);
    expect(warns.map((l) => l.msg)).toEqual(
      ['witness is down; asked again with backoff', 'witness is still down', 'witness is still down'].slice(
        0,
        warns.length,
      ),
    );
    expect(warns.length, 'warn lines while down').toBeGreaterThanOrEqual(2);
    expect(warns.length, 'warn lines while down').toBeLessThanOrEqual(3);
    expect(warns[0]?.['retry_in_ms']).toBeTypeOf('number');
    expect(metric(metricsDown, 'proto_log_witness_up', id)).toBe(0);
    expect(metric(metricsDown, 'proto_log_witness_consecutive_failures', id)).toBe(attempts);
    expect((await fetch(`${log.url}/checkpoint`)).status).toBe(503);

    // It returns on the same port with its state: within the backoff's cap the log asks, publishes, says so once.
    const back = await startWitness(witnessDir, 'witness.test/backoff', [identity], { port });
    cleanups.push(() => back.close());
    const deadline = Date.now() + 5000;
    while ((await fetch(`${log.url}/checkpoint`)).status !== 200 && Date.now() < deadline) await sleep(100);
    expect((await fetch(`${log.url}/checkpoint`)).status).toBe(200);
    await sleep(300);
    const upLines = ofWitness().filter((l) => l.msg === 'witness is back up');
    expect(upLines).toHaveLength(1);
    expect(upLines[0]?.level).toBe(30);
    expect(upLines[0]?.['failures']).toBeGreaterThanOrEqual(attempts);
    expect(upLines[0]?.['down_for_s']).toBeGreaterThanOrEqual(4);
    const metricsUp = await (await fetch(`${log.url}/metrics`)).text();
    expect(metric(metricsUp, 'proto_log_witness_up', id)).toBe(1);
    expect(metric(metricsUp, 'proto_log_witness_consecutive_failures', id)).toBe(0);
  }, 30_000);
});
