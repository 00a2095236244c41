// P486: JURISDICTION is written into every list and attestation, and verifiers look a list up by the upper-case ISO
// 3166 code (service-kit's normaliseJurisdiction; REVOCATION_SOURCES keys are upper-cased) and refuse a list that
// names another jurisdiction. A revocation service started with JURISDICTION=us (the README's pattern allows it)
// published lists for "us": every verifier refused them, and below elevated a refused list is "status not
// established", so a revoked agent's bundle verified (`verified: true`, revocation `skipped`); at elevated every
// bundle of the jurisdiction failed E701. Now such a value stops the boot, naming the code to write. Real services
// over HTTP for the control.
import { ConfigError } from '@proto/service-kit';
import { postVerify, sampleBundle, startApp } from '@proto/verification/testing';
import { describe, expect, it } from 'vitest';
import { call, revoke, startService } from '../../src/test-support.ts';

describe('P486: a JURISDICTION verifiers would not match stops the boot', () => {
  it.each([
    ['us', 'US'],
    ['Us-cA', 'US-CA'],
  ])('JURISDICTION=%s: ConfigError naming the variable and %s', async (written, expected) => {
    const started = startService({ timer: false, env: { JURISDICTION: written } });
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(new RegExp(`JURISDICTION.*${expected}`));
  });

  it('JURISDICTION=US: a verifier pointed at the list refuses the revoked agent (standard tier)', async () => {
    const service = await startService({ timer: false, env: { JURISDICTION: 'US', LIST_MAX_AGE_S: '0' } });
    const health = await call(service, 'GET', '/health', undefined, null);
    const verification = await startApp({
      VERIFY_WORKERS: '1',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      REVOCATION_SOURCES: JSON.stringify({
        US: { url: service.listUrl, keys: [health.json['revocation_public_key_b64']] },
      }),
    });
    try {
      const sample = sampleBundle({});
      expect((await revoke(service, String(sample.agentId))).status).toBe(201);
      const answer = await postVerify(verification.url, { signed_bundle: sample.signed_bundle });
      expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(false);
      expect((answer.json['checks'] as Record<string, string>)['revocation']).toBe('fail');
    } finally {
      await verification.close();
      await service.close();
    }
  });
});
