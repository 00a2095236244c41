// P539: POST /emergency-tokens verified the registering bundle on the event loop. A maximum-size bundle (about 950 KB,
// 150 PQ checkpoints) is a few hundred milliseconds of analyze + finalize, so a handful of concurrent registrations (each
// within its address's budget, from as many addresses) held /health, /ready and every revocation read for as long.
// Real revocation service over HTTP, real SQLite, real worker threads; no timing: the health probes answered while
// the registrations were being verified are counted.
import { buildSignedBundle } from '@proto/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Answer, newEmergencySecret, postWithoutToken } from '../../src/test-support.ts';
import { serviceForDescribe } from './test-helpers.ts';

const JURISDICTION = 'US'; // the builder writes RPRs for US
const REGISTRATIONS = 6;
// The test is the one trusted proxy, so each registration can come from an address of its own.
const TRUST_PROXY = '127.0.0.1';

// One registration per address (documentation range), so no per-address budget is what holds them back.
const fromAddress = (i: number) => ({ 'x-forwarded-for': `198.51.100.${i + 1}` });

describe('P539: emergency-token registrations are verified off the event loop', () => {
  let largest: Record<string, unknown>;
  beforeAll(() => {
    largest = buildSignedBundle({
      tier: 'maximum',
      entries: 150,
      emergencyRevocationToken: newEmergencySecret().token,
    }).signed_bundle;
    expect(JSON.stringify({ signed_bundle: largest }).length).toBeLessThan(1_048_576);
  }, 120_000);

  describe('with the default pool', () => {
    const service = serviceForDescribe({ JURISDICTION, EMERGENCY_REGISTRATION: 'bundle', TRUST_PROXY });

    it('/health keeps answering while maximum-size registrations are verified', async () => {
      // One registration first: the worker's start and the first verification's compilation are not what is counted.
      expect(
        (await postWithoutToken(service(), '/emergency-tokens', { signed_bundle: largest })).status,
      ).toBe(201);
      const done: ('registration' | 'health')[] = [];
      let registering = true;
      const probes = (async () => {
        while (registering) {
          const health = await fetch(`${service().url}/health`);
          await health.arrayBuffer();
          expect(health.status).toBe(200);
          done.push('health');
        }
      })();
      const answers = await Promise.all(
        Array.from({ length: REGISTRATIONS }, async (_, i) => {
          const answer = await postWithoutToken(
            service(),
            '/emergency-tokens',
            { signed_bundle: largest },
            fromAddress(i),
          );
          done.push('registration');
          return answer;
        }),
      );
      registering = false;
      await probes;
      expect(answers.map((a) => a.status)).toEqual(Array(REGISTRATIONS).fill(201));
      const first = done.indexOf('registration');
      const last = done.lastIndexOf('registration');
      const healthBetween = done.slice(first, last).filter((d) => d === 'health').length;
      // On the event loop, each verification held every probe: at most about one answer between two registrations.
      expect(healthBetween).toBeGreaterThan(REGISTRATIONS * 4);
    }, 120_000);
  });

  describe('with one worker and no waiting room', () => {
    const service = serviceForDescribe({
      JURISDICTION,
      EMERGENCY_REGISTRATION: 'bundle',
      TRUST_PROXY,
      EMERGENCY_VERIFY_WORKERS: '1',
      EMERGENCY_VERIFY_QUEUE_MAX: '0',
    });

    it('a registration beyond the busy worker is answered 503 with Retry-After and PROTO-E702', async () => {
      const answers: Answer[] = await Promise.all(
        Array.from({ length: REGISTRATIONS }, (_, i) =>
          postWithoutToken(service(), '/emergency-tokens', { signed_bundle: largest }, fromAddress(i)),
        ),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses).toContain(201);
      expect(
        statuses.every((s) => s === 201 || s === 503),
        JSON.stringify(statuses),
      ).toBe(true);
      const busy = answers.find((a) => a.status === 503);
      expect(busy, JSON.stringify(statuses)).toBeDefined();
      expect(busy?.headers.get('retry-after')).toBe('1');
      expect(JSON.stringify(busy?.json)).toMatch(/E702/);
      // Once the worker is free again, a registration goes through.
      expect(
        (await postWithoutToken(service(), '/emergency-tokens', { signed_bundle: largest }, fromAddress(99)))
          .status,
      ).toBe(201);
    }, 120_000);
  });
});
