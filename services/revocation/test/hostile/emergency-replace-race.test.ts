// An emergency secret used while the operator replaces its token, on two replicas of one store (P401): one of the two
// happens first. Either the secret revokes the agent and the replacement is refused (409, used), or the replacement
// lands and the old secret no longer matches (404); never both succeeding, with the new token marked used by the
// old secret. Real services over HTTP, every dialect.
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  newEmergencySecret,
  type RunningService,
  startService,
  useEmergencySecret,
} from '../../src/test-support.ts';

const AGENTS = 100;

describe.each(dialectsUnderTest())(
  'emergency secret used while its token is replaced, on %s (P401)',
  (dialect) => {
    let target: StoreTarget;
    const replicas: RunningService[] = [];

    beforeAll(async () => {
      target = await createStoreTarget(dialect, 'emergency-replace');
      const env = { EMERGENCY_MAX_PER_IP: '1000', EMERGENCY_MAX_PER_AGENT: '1000' };
      const first = await startService({ store: target.options, timer: false, env });
      replicas.push(
        first,
        await startService({ store: target.options, dataDir: first.dataDir, timer: false, env }),
      );
    });
    afterAll(async () => {
      await Promise.all(replicas.map((r) => r.close()));
      await target?.cleanup();
    });

    it('lets exactly one of the two happen', async () => {
      const [a, b] = replicas as [RunningService, RunningService];
      const both: string[] = [];
      const outcomes = new Map<string, number>();
      await Promise.all(
        Array.from({ length: AGENTS }, async (_, i) => {
          const agentId = `agent:replace-race-${i}`;
          const old = newEmergencySecret();
          const put = (token: string) =>
            call(i % 2 === 0 ? b : a, 'PUT', `/emergency-tokens/${agentId}`, {
              emergency_revocation_token: token,
            });
          expect((await put(old.token)).status).toBe(201);
          const [used, replaced] = await Promise.all([
            useEmergencySecret(i % 2 === 0 ? a : b, agentId, old.hex),
            put(newEmergencySecret().token),
          ]);
          const key = `${used.status}/${replaced.status}`;
          outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
          if (used.status === 200 && replaced.status === 200) both.push(agentId);
        }),
      );
      expect(both, JSON.stringify([...outcomes])).toEqual([]);
      // Used then replaced: 200 and 409. Replaced then used: the old secret refused (4xx), the operator's 200.
      for (const key of outcomes.keys())
        expect(['200/409', '4xx/200'], key).toContain(key.replace(/^4\d\d\//, '4xx/'));
    });
  },
);
