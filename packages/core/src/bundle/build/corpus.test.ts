// Runs the whole committed bundle corpus through createVerifier and checks every expected verdict,
// failing check and error code. DECISIONS D5–D12 (what each case exercises is in its description).
import { describe, expect, it } from 'vitest';
import { createVerifier } from '../index.ts';
import type { CheckName } from '../types.ts';
import { readCorpus } from './corpus/generate.ts';

const { cases } = readCorpus();

describe('bundle corpus', () => {
  it('covers every check with a case that fails it alone, V1 and V2, both profiles and shapes', () => {
    const alone = new Set(
      cases
        .filter((c) => c.stored.expect.failed_checks.length === 1)
        .map((c) => c.stored.expect.failed_checks[0]),
    );
    const required: CheckName[] = [
      'schema',
      'classical_sig',
      'pq_sig',
      'manifest_integrity',
      'hash_chain',
      'session_nonce',
      'artifact_sigs',
      'intent_hash',
      'checkpoints',
      'key_validity',
      'bundle_hash',
      'merkle_root',
    ];
    for (const check of required) expect(alone, check).toContain(check);
    const bases = new Set(cases.map((c) => c.stored.base));
    for (const base of [
      'v1-standard',
      'v2-proto-spec-standard',
      'v2-proto-sdk-standard',
      'v2-dcp-ai-sdk-standard',
      'v2-dcp-ai-spec-standard',
    ]) {
      expect(bases).toContain(base);
    }
    const modes = new Set(cases.map((c) => c.stored.verifier.mode));
    for (const mode of ['classical_only', 'hybrid_preferred', 'hybrid_required', 'pq_only'])
      expect(modes).toContain(mode);
  });

  it.each(cases.map((c) => [c.stored.id, c] as const))('%s', (_id, { stored, request }) => {
    const { now, ...options } = stored.verifier;
    const verifier = createVerifier({ ...options, clock: () => new Date(now) });
    if (!verifier.ok) throw new Error(verifier.error.message);
    const response = verifier.value.verify(request);
    const failed = Object.entries(response.checks)
      .filter(([, status]) => status === 'fail')
      .map(([check]) => check)
      .sort();
    const expected = stored.expect;
    const summary = {
      verified: response.verified,
      failed,
      errors: response.errors,
      tier: response.resolved_tier,
    };
    expect(response.verified, JSON.stringify(summary)).toBe(expected.verified);
    if (expected.verified) expect(response.errors ?? []).toEqual([]);
    expect(failed, JSON.stringify(summary)).toEqual(expected.failed_checks);
    if (expected.resolved_tier !== undefined) expect(response.resolved_tier).toBe(expected.resolved_tier);
    const details = (response.error_details ?? []).map((d) => ({ check: d.check, code: d.code }));
    for (const error of expected.errors)
      expect(details, JSON.stringify(response.error_details)).toContainEqual(error);
    for (const [check, status] of Object.entries(expected.checks ?? {})) {
      expect(response.checks[check as CheckName], `checks.${check}`).toBe(status);
    }
    if (expected.warnings !== undefined) expect((response.warnings ?? []).length > 0).toBe(expected.warnings);
  });
});
