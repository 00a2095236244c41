// POST /revocations racing itself on two replicas of one store (P468): a revocation's `recorded_at` lies between
// the issued_at of the last list without it and the issued_at of the first list with it. Real services over HTTP,
// every dialect; both replicas read one strictly increasing clock, so the stored times order the work as it ran.
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  JURISDICTION,
  newEmergencySecret,
  type RunningService,
  revoke,
  startService,
  useEmergencySecret,
} from '../../src/test-support.ts';

/** Fewer than the 32 lists the store keeps, so each entry's first list and the one before are still there. */
const REVOCATIONS = 28;

/** The wall clock, but never the same reading twice: each replica's readings are totally ordered. */
function strictClock(): () => Date {
  let last = 0;
  return () => {
    last = Math.max(Date.now(), last + 1);
    return new Date(last);
  };
}

describe.each(dialectsUnderTest())('POST /revocations racing on two replicas on %s (P468)', (dialect) => {
  let target: StoreTarget;
  let replicas: RunningService[] = [];

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'revoke-recorded-at');
    const clock = strictClock();
    const env = { EMERGENCY_MAX_PER_IP: '1000', EMERGENCY_MAX_PER_AGENT: '1000' };
    const first = await startService({ store: target.options, timer: false, clock, env });
    const second = await startService({
      store: target.options,
      dataDir: first.dataDir,
      timer: false,
      clock,
      env,
    });
    replicas = [first, second];
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await target?.cleanup();
  });

  /** The entry's time against the list before its first one and its first one: what disagrees, in words. */
  const misdatedEntries = async (agents: readonly string[]): Promise<string[]> => {
    const store = await target.open();
    const misdated: string[] = [];
    for (const agent of agents) {
      const entry = await store.revocation.getEntry(JURISDICTION, agent);
      expect(entry, agent).toBeDefined();
      const recorded = Date.parse(String(entry?.recorded_at));
      const first = await store.revocation.getList(JURISDICTION, Number(entry?.first_list_number));
      const before = await store.revocation.getList(JURISDICTION, Number(entry?.first_list_number) - 1);
      expect(first, `list ${entry?.first_list_number}`).toBeDefined();
      if (before !== undefined && recorded < Date.parse(before.issued_at))
        misdated.push(
          `${agent}: recorded_at ${entry?.recorded_at}, list ${before.list_number} issued ${before.issued_at}`,
        );
      if (recorded > Date.parse(String(first?.issued_at)))
        misdated.push(
          `${agent}: recorded_at ${entry?.recorded_at} after its first list's ${first?.issued_at}`,
        );
    }
    return misdated;
  };

  it('records no revocation at a time a list that lacks it was issued after', async () => {
    const answers = await Promise.all(
      Array.from({ length: REVOCATIONS }, (_, i) =>
        revoke(replicas[i % 2] as RunningService, `agent:recorded-${i}`),
      ),
    );
    const store = await target.open();
    const misdated: string[] = [];
    const numbers = new Set<number>();
    for (const answer of answers) {
      expect(answer.status).toBe(201);
      const { agent_id, recorded_at, list_number } = answer.json as {
        agent_id: string;
        recorded_at: string;
        list_number: number;
      };
      numbers.add(list_number);
      const first = await store.revocation.getList(JURISDICTION, list_number);
      const before = await store.revocation.getList(JURISDICTION, list_number - 1);
      expect(first, `list ${list_number}`).toBeDefined();
      const carried = (JSON.parse(String(first?.list_json)) as { entries: { agent_id: string }[] }).entries;
      expect(carried.map((e) => e.agent_id)).toContain(agent_id);
      if (before !== undefined) {
        const lacked = (JSON.parse(before.list_json) as { entries: { agent_id: string }[] }).entries;
        expect(lacked.map((e) => e.agent_id)).not.toContain(agent_id);
        if (Date.parse(recorded_at) < Date.parse(before.issued_at))
          misdated.push(
            `${agent_id}: recorded_at ${recorded_at}, but list ${before.list_number} issued ${before.issued_at} lacks it`,
          );
      }
      if (Date.parse(recorded_at) > Date.parse(String(first?.issued_at)))
        misdated.push(`${agent_id}: recorded_at ${recorded_at} after its first list's ${first?.issued_at}`);
    }
    // One list per revocation, none shared; and every entry's time agrees with the lists around it.
    expect(numbers.size).toBe(REVOCATIONS);
    expect(misdated).toEqual([]);
  });

  it('records no emergency revocation at a time a list that lacks it was issued after', async () => {
    const agents = Array.from({ length: REVOCATIONS / 2 }, (_, i) => `agent:emergency-recorded-${i}`);
    const secrets = await Promise.all(
      agents.map(async (agent, i) => {
        const secret = newEmergencySecret();
        const put = await call(replicas[i % 2] as RunningService, 'PUT', `/emergency-tokens/${agent}`, {
          emergency_revocation_token: secret.token,
        });
        expect(put.status).toBe(201);
        return secret;
      }),
    );
    // Emergency revocations on both replicas at once, racing operator revocations of other agents.
    const others = agents.map((agent) => agent.replace('emergency', 'operator'));
    const answers = await Promise.all([
      ...agents.map((agent, i) =>
        useEmergencySecret(replicas[i % 2] as RunningService, agent, (secrets[i] as { hex: string }).hex),
      ),
      ...others.map((agent, i) => revoke(replicas[(i + 1) % 2] as RunningService, agent)),
    ]);
    for (const answer of answers) expect([200, 201], JSON.stringify(answer.json)).toContain(answer.status);
    expect(await misdatedEntries([...agents, ...others])).toEqual([]);
  });
});
