// The soak's judgements, without the stack: how a /verify answer is judged during a fault, and that the
// rules Prometheus evaluates in the soak are the shipped ones with only `for:` compressed (issue 16 item 5).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { judgeVerify, newLedger } from './load.ts';
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
