// The soak's judgements, without the stack: how a /verify answer is judged during a fault, that the rules
// Prometheus evaluates in the soak are the shipped ones with only `for:` compressed, how memory is judged,
// and that its PostgreSQL and Redis are its own (issue 16 item 5).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OwnPostgres, OwnRedis } from './dependencies.ts';
import { judgeVerify, newLedger } from './load.ts';
import { judgeMemory } from './memory.ts';
import { compressedRules } from './prometheus.ts';

const verdict = (json: Record<string, unknown>, status = 200) => ({ status, json });

describe('soak: a verdict a fault may not change', () => {
  it('counts a valid bundle verified, and a tampered one rejected', () => {
    const ledger = newLedger();
    judgeVerify(ledger, true, verdict({ verified: true }));
    judgeVerify(ledger, false, verdict({ verified: false, error_details: [{ code: 'PROTO-E101' }] }));
    expect(ledger.verify).toMatchObject({ validOk: 1, invalidOk: 1, violations: [] });
  });

  it('allows a valid bundle verified:false only when every code is retryable', () => {
    const ledger = newLedger();
    judgeVerify(
      ledger,
      true,
      verdict({ verified: false, error_details: [{ code: 'E501', retryable: true }] }),
    );
    expect(ledger.verify.retryableFalse).toBe(1);
    judgeVerify(
      ledger,
      true,
      verdict({
        verified: false,
        error_details: [
          { code: 'E501', retryable: true },
          { code: 'E301', retryable: false },
        ],
      }),
    );
    judgeVerify(ledger, true, verdict({ verified: false, error_details: [] }));
    expect(ledger.verify.violations).toHaveLength(2);
  });

  it('flags a tampered bundle reported valid', () => {
    const ledger = newLedger();
    judgeVerify(ledger, false, verdict({ verified: true }));
    expect(ledger.verify.violations).toEqual(['an invalid bundle was reported valid']);
  });

  it('counts no answer, 5xx and 429 as no verdict, and a 4xx without a verdict as a violation', () => {
    const ledger = newLedger();
    judgeVerify(ledger, true, undefined);
    judgeVerify(ledger, true, verdict({ error: { code: 'PROTO-E702', retryable: true } }, 503));
    judgeVerify(ledger, false, verdict({}, 429));
    expect(ledger.verify.unavailable).toBe(3);
    judgeVerify(ledger, true, verdict({ error: { code: 'BAD_REQUEST' } }, 400));
    expect(ledger.verify.violations).toHaveLength(1);
  });
});

describe('soak: the alert rules it evaluates', () => {
  const shipped = readFileSync(
    fileURLToPath(new URL('../../deploy/monitoring/rules/signed-bundles.rules.yml', import.meta.url)),
    'utf8',
  );

  it('changes every for: and nothing else', () => {
    const rules = compressedRules(4);
    const fors = shipped.match(/^\s+for:.*$/gm) ?? [];
    expect(fors.length).toBeGreaterThan(5);
    expect(rules.match(/^\s+for: 4s$/gm)).toHaveLength(fors.length);
    expect(rules.replace(/^(\s+for:).*$/gm, '$1')).toBe(shipped.replace(/^(\s+for:).*$/gm, '$1'));
  });

  it('is a rules file promtool accepts', () => {
    let promtool = true;
    try {
      execFileSync('promtool', ['--version'], { stdio: 'ignore' });
    } catch {
      promtool = false;
    }
    if (!promtool) return; // .ci/run installs it; a laptop without it still runs the rest
    const dir = mkdtempSync(join(tmpdir(), 'soak-rules-'));
    try {
      writeFileSync(join(dir, 'rules.yml'), compressedRules(4));
      expect(() =>
        execFileSync('promtool', ['check', 'rules', join(dir, 'rules.yml')], { stdio: 'pipe' }),
      ).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('soak: memory judged as a leak, not as heap sizing', () => {
  const bounds = { growthMb: 32, ceilingMb: 400, warmupS: 20, rssPlateauAfterS: 240 };
  const every2s = (from: number, to: number, mb: (t: number) => number, pid = 1) =>
    Array.from({ length: (to - from) / 2 + 1 }, (_, i) => ({ t: from + 2 * i, mb: mb(from + 2 * i), pid }));

  it('passes RSS that climbs to a plateau while the heap floor stays flat', () => {
    // A fresh process sizing its heap: +150 MB in the first minute, flat after.
    const rss = every2s(0, 180, (t) => 150 + Math.min(150, 2.5 * t));
    const heap = every2s(0, 180, () => 40);
    const verdict = judgeMemory(rss, heap, bounds);
    expect(verdict.ok, verdict.result).toBe(true);
  });

  it('fails a heap floor that keeps rising (a leak) over a long life, RSS flat or not', () => {
    const rss = every2s(0, 600, () => 250);
    // 1 MB/s, the rate the transparency log's RSS rose at in the first soak (205 → 349 MB in 120 s).
    const heap = every2s(0, 600, (t) => 40 + t);
    const verdict = judgeMemory(rss, heap, bounds);
    expect(verdict.ok).toBe(false);
    expect(verdict.result).toMatch(/heap floor \+2\d\d\.\d MB/);
    // On a 3-minute life it is reported, not judged (a fault's refill looks the same there).
    const young = judgeMemory(
      every2s(0, 180, () => 250),
      every2s(0, 180, (t) => 40 + t),
      bounds,
    );
    expect(young.ok, young.result).toBe(true);
    expect(young.result).toMatch(/heap floor \+6\d\.\d MB.*neither judged/);
  });

  it('fails RSS still rising in the second half of a long life, and any process over the ceiling', () => {
    const flat = every2s(0, 600, () => 40);
    expect(
      judgeMemory(
        every2s(0, 600, (t) => 150 + t / 4),
        flat,
        bounds,
      ).ok,
    ).toBe(false);
    // A 3-minute process still sizing its heap: reported, the heap floor decides.
    const young = judgeMemory(
      every2s(0, 180, (t) => 150 + t / 2),
      flat,
      bounds,
    );
    expect(young.ok, young.result).toBe(true);
    expect(young.result).toMatch(/neither judged/);
    const heap = every2s(0, 180, () => 40);
    const killed = every2s(0, 60, () => 450, 7);
    const verdict = judgeMemory([...killed, ...every2s(62, 180, () => 200, 8)], heap, bounds);
    expect(verdict.result).toMatch(/peak RSS 450 MB/);
    expect(verdict.ok).toBe(false);
  });

  it('judges only the process serving at the end, after its own warm-up', () => {
    const heap = every2s(0, 180, (t) => (t < 100 ? 40 + t : 40));
    // The first process leaked and was killed at 98 s; its successor is flat.
    const rss = [...every2s(0, 98, (t) => 150 + t, 1), ...every2s(100, 180, () => 180, 2)];
    const verdict = judgeMemory(rss, heap, bounds);
    expect(verdict.ok, verdict.result).toBe(true);
  });
});

describe('soak: its own PostgreSQL and Redis', () => {
  const ready = (port: number) => {
    try {
      execFileSync('pg_isready', ['-q', '-h', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };

  it('starts, faults and stops servers of its own; the shared ones stay up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'soak-deps-'));
    const postgres = new OwnPostgres(dir);
    const redis = new OwnRedis();
    try {
      await postgres.init();
      await postgres.start();
      await redis.start();
      expect(postgres.port).not.toBe(5432);
      expect(redis.port).not.toBe(6379);
      expect(postgres.isReady() && redis.isReady()).toBe(true);
      postgres.stopImmediate();
      await redis.stop();
      expect(postgres.isReady() || redis.isReady()).toBe(false);
      expect(ready(5432)).toBe(true);
      await postgres.start();
      await redis.start();
      expect(postgres.isReady() && redis.isReady()).toBe(true);
    } finally {
      redis.stopNow();
      postgres.stopQuietly();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
