// P482: LIST_VALIDITY_S and ATTESTATION_VALIDITY_S are seconds added to the clock and written as RFC 3339 times
// (next_update, expires_at). With no upper bound, a value in milliseconds by mistake (ten years as 315360000000) put
// the time past year 9999: the service booted and then answered every POST /attest 400 "attestation: /expires_at must
// match format date-time" (blaming the caller; 500 PROTO-E900 past what Date holds), or its boot died in the list's
// signing with a stack trace. Now the boot stops with a ConfigError naming the variable and its bound; at the bound
// the service signs both documents. Real service over HTTP for the control.
import { ConfigError } from '@proto/service-kit';
import { describe, expect, it } from 'vitest';
import { loadRevocationConfig } from '../../src/config.ts';
import { call, currentList, startService } from '../../src/test-support.ts';

const BOUND_S = 3_153_600_000; // 100 years of 365 days

describe('P482: validity periods past any writable date stop the boot', () => {
  it.each([
    ['ATTESTATION_VALIDITY_S', '315360000000'],
    ['LIST_VALIDITY_S', '315360000000'],
    ['LIST_VALIDITY_S', '1e20'],
    ['ATTESTATION_VALIDITY_S', String(BOUND_S + 1)],
  ])('%s=%s: ConfigError naming it', (variable, value) => {
    let thrown: unknown;
    try {
      loadRevocationConfig({ [variable]: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variables).toContain(variable);
    expect((thrown as Error).message).toMatch(new RegExp(`${variable} must be <= ${BOUND_S}`));
  });

  it('at the bound, the list and an attestation are signed with dates a verifier reads', async () => {
    const service = await startService({
      timer: false,
      env: { LIST_VALIDITY_S: String(BOUND_S), ATTESTATION_VALIDITY_S: String(BOUND_S) },
    });
    try {
      const list = await currentList(service);
      expect(String(list['next_update'])).toMatch(/^2\d{3}-\d\d-\d\dT/);
      const attested = await call(service, 'POST', '/attest', {
        agent_id: 'agent-bound-0001',
        rpr_hash: `sha256:${'a'.repeat(64)}`,
      });
      expect(attested.status, JSON.stringify(attested.json)).toBe(200);
      const attestation = attested.json['attestation'] as { expires_at: string };
      expect(attestation.expires_at).toMatch(/^2\d{3}-\d\d-\d\dT/);
    } finally {
      await service.close();
    }
  });
});
