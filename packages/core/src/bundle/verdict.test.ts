// assembleVerdict: the one place the D12 response is written, with the clock's findings and the
// external outcomes a service computed (issue 13 item 2; DECISIONS D12, D19–D21).
import { describe, expect, it } from 'vitest';
import { buildSignedBundle } from './build/index.ts';
import { backend, FIXED_NOW, type J, makeVerifier } from './test-support.ts';
import { addExternalOutcomes, assembleVerdict, type ExternalOutcome } from './verdict.ts';

const verifier = makeVerifier();
const settings = verifier.settings;
const profile = verifier.profile;
const signed = buildSignedBundle({ now: FIXED_NOW, backend }).signed_bundle as J;
const analysis = verifier.analyze({ signed_bundle: signed });

const revoked: ExternalOutcome = {
  check: 'revocation',
  status: 'fail',
  error: { code: 'PROTO-E303', check: 'revocation', message: 'agent revoked', retryable: false },
  warnings: [],
};
const anchorSkipped: ExternalOutcome = {
  check: 'anchor',
  status: 'skipped',
  warnings: ['anchor not checked'],
};

describe('assembleVerdict', () => {
  it('without external outcomes gives exactly what finalize gives', () => {
    expect(assembleVerdict(analysis, FIXED_NOW, settings, profile)).toEqual(
      verifier.finalize(analysis, FIXED_NOW),
    );
    expect(assembleVerdict(analysis, FIXED_NOW, settings, profile).verified).toBe(true);
  });

  it('a failing external check turns a verified bundle down, its detail last, checks in D12 order', () => {
    const verdict = assembleVerdict(analysis, FIXED_NOW, settings, profile, [revoked, anchorSkipped]);
    expect(verdict.verified).toBe(false);
    expect(verdict.errors).toEqual(['agent revoked']);
    expect(verdict.error_details).toEqual([revoked.error]);
    expect(verdict.warnings).toEqual(['anchor not checked']);
    // The engine's ledger already lists every check in D12's order; outcomes only fill in their status.
    expect(Object.keys(verdict.checks)).toEqual(Object.keys(analysis.checks));
    expect(verdict.checks.revocation).toBe('fail');
    expect(verdict.checks.anchor).toBe('skipped');
  });

  it('passing or skipped external checks keep the verdict and add only their warnings', () => {
    const verdict = assembleVerdict(analysis, FIXED_NOW, settings, profile, [anchorSkipped]);
    expect(verdict.verified).toBe(true);
    expect(verdict.errors).toBeUndefined();
    expect(verdict.warnings).toEqual(['anchor not checked']);
  });

  it('the engine findings come before the external ones, and the clock still counts', () => {
    const late = new Date(FIXED_NOW.getTime() + 400 * 86_400_000);
    const verdict = assembleVerdict(analysis, late, settings, profile, [revoked]);
    expect(verdict.verified).toBe(false);
    expect(verdict.checks.key_validity).toBe('fail');
    expect(verdict.error_details?.at(-1)).toEqual(revoked.error);
    const engine = verdict.error_details?.slice(0, -1) ?? [];
    expect(engine.length).toBeGreaterThan(0);
    expect(engine.some((d) => d.check === 'key_validity')).toBe(true);
    expect(engine.every((d) => d.check !== 'revocation')).toBe(true);
  });

  it('the service path (response from a worker, then outcomes) gives the same verdict', () => {
    const engine = verifier.finalize(analysis, FIXED_NOW);
    expect(addExternalOutcomes(engine, [revoked, anchorSkipped])).toEqual(
      assembleVerdict(analysis, FIXED_NOW, settings, profile, [revoked, anchorSkipped]),
    );
  });
});
