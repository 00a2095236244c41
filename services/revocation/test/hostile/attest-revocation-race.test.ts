// POST /attest racing POST /revocations on two replicas of one store (P400): the authority never signs an
// attestation dated after the list that first carries the agent's revocation. Real services over HTTP, every
// dialect; both replicas read one strictly increasing clock, so the stored and signed times order the work.
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RunningService, revoke, startService } from '../../src/test-support.ts';

const RPR = `sha256:${'3c'.repeat(32)}`;
const AGENTS = 12;
const MAX_ATTESTS = 200;
const ROUNDS = 1;

/** The wall clock, but never the same reading twice: each replica's readings are totally ordered. */
function strictClock(): () => Date {
  let last = 0;
  return () => {
    last = Math.max(Date.now(), last + 1);
    return new Date(last);
  };
}

describe.each(dialectsUnderTest())('POST /attest racing revocations on %s (P400)', (dialect) => {
  let target: StoreTarget;
  let replicas: RunningService[] = [];

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'attest-race');
    const clock = strictClock();
    const first = await startService({ store: target.options, timer: false, clock });
    const second = await startService({ store: target.options, dataDir: first.dataDir, timer: false, clock });
    replicas = [first, second];
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await target?.cleanup();
  });

  it('issues no attestation later than the list that revokes the agent', async () => {
    const store = await target.open();
    const late: string[] = [];
    let issued = 0;
    let refused = 0;
    const check = async (agent: string, answer: { status: number; json: Record<string, unknown> }) => {
      if (answer.status === 403) {
        expect((answer.json['error'] as Record<string, unknown>)['code']).toBe('PROTO-E300');
        refused++;
        return false;
      }
      expect(answer.status).toBe(200);
      issued++;
      attested.push({ agent, at: (answer.json['attestation'] as { attested_at: string }).attested_at });
      return true;
    };
    const attested: { agent: string; at: string }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const agents = Array.from({ length: AGENTS }, (_, i) => `agent:race-${round}-${i}`);
      // Per agent: each replica asks for attestations one after another until it is refused, while the agent
      // is revoked on one of them once the first attestation is out.
      await Promise.all(
        agents.map(async (agent, i) => {
          const chains = replicas.map(async (replica) => {
            for (let n = 0; n < MAX_ATTESTS; n++) {
              const answer = await call(replica, 'POST', '/attest', { agent_id: agent, rpr_hash: RPR });
              if (!(await check(agent, answer))) return;
            }
          });
          const first = await call(replicas[i % 2] as RunningService, 'POST', '/attest', {
            agent_id: agent,
            rpr_hash: RPR,
          });
          await check(agent, first);
          const revoked = await revoke(replicas[(i + 1) % 2] as RunningService, agent);
          expect(revoked.status).toBe(201);
          await Promise.all(chains);
        }),
      );
    }
    for (const { agent, at } of attested) {
      const entry = await store.revocation.getEntry('FR', agent);
      const list = await store.revocation.getList('FR', entry?.first_list_number ?? -1);
      expect(list).toBeDefined();
      if (Date.parse(at) >= Date.parse(String(list?.issued_at)))
        late.push(
          `${agent}: attested_at ${at}, revoked in list ${list?.list_number} issued ${list?.issued_at}`,
        );
    }
    // Both outcomes happen (the race is real), and no attestation postdates the revoking list.
    expect(issued).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    expect(late).toEqual([]);
  });
});
