// P524: agents of one human share that human's binding rows (the RPR's keys, subject the human id). Since P474 an
// application locks its agent's passport row first, but two agents' applications do not share that row, and the
// human's rows were then locked in each statement's own order: a bundle whose RPR marks a human key as retired locked
// that row first (the retiring UPDATE) and the human's other rows after (the seen_at UPDATE), while a bundle of another
// agent of the same human, whose RPR still lists that key, locked the human's rows in the table's physical order. On
// PostgreSQL two such applications can each hold a row the other wants. Two stores on one PostgreSQL schema, many
// humans at once, each with one agent retiring a human key and one agent proving it still.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kid, passportBinding } from './key-directory-testing.ts';
import type { NewKeyBinding, PassportKeys } from './repositories/key-directory.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

const principal = (k: string, human: string, evidence: string): NewKeyBinding => ({
  ...passportBinding(k, human, evidence),
  role: 'principal',
});

/** A bundle of `agent` under `human`: its passport keys, and its RPR's keys in `rpr` order, `marked` retired. */
function bundle(
  agent: string,
  human: string,
  createdAt: string,
  evidence: string,
  agentKids: string[],
  rpr: string[],
  marked: string[] = [],
): PassportKeys {
  return {
    agentId: agent,
    passportSignerKid: agentKids[0],
    createdAt,
    evidence,
    activeKids: agentKids,
    retiredKids: marked,
    subjects: [agent, human],
    humanId: human,
    principalSignerKid: rpr[rpr.length - 1],
    bindings: [
      ...agentKids.map((k) => passportBinding(k, agent, evidence)),
      ...rpr.map((k) => principal(k, human, evidence)),
    ],
  };
}

describe.each(dialectsUnderTest())('P524: two agents of one human on %s', (dialect) => {
  let target: StoreTarget;
  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'key-human-lock');
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('one retiring a human key while the other proves it: every application completes', async () => {
    const a = await target.open();
    const b = await target.open();
    const humans = Array.from({ length: 64 }, (_, i) => i);
    const h = (i: number) => `human:lock-${i}`;
    const hk = (i: number, n: number) => kid(`${i.toString(16).padStart(2, '0')}h${n}`).slice(0, 32);
    const ak = (i: number, agent: number, n: number) =>
      kid(`${i.toString(16).padStart(2, '0')}a${agent}${n}`).slice(0, 32);
    // First bundles: the human's keys stored in the order 2, 1, 3 (the table's physical order for these rows).
    const firstOf = (i: number, agent: number) =>
      bundle(
        `agent:lock-${i}-${agent}`,
        h(i),
        '2026-01-01T00:00:00Z',
        `sha256:${i}${'ab'[agent]}`,
        [ak(i, agent, 0), ak(i, agent, 1)],
        [hk(i, 2), hk(i, 1), hk(i, 3)],
      );
    for (const i of humans) {
      await a.keys.applyPassport(firstOf(i, 0));
      await a.keys.applyPassport(firstOf(i, 1));
    }
    const failures: string[] = [];
    for (let round = 0; round < 3; round++) {
      const outcomes = await Promise.allSettled(
        humans.flatMap((i) => [
          // Agent 0's newer bundle: its RPR retires human key 1 and keeps 2 and 3; agent 0 drops its key 1.
          a.keys.applyPassport(
            bundle(
              `agent:lock-${i}-0`,
              h(i),
              `2026-01-0${2 + round}T00:00:00Z`,
              `sha256:${i}c${round}`,
              [ak(i, 0, 0)],
              [hk(i, 3), hk(i, 2)],
              [hk(i, 1)],
            ),
          ),
          // Agent 1's bundle, its RPR older: still lists human key 1 (proven again: seen_at), in the stored order.
          b.keys.applyPassport(firstOf(i, 1)),
        ]),
      );
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') failures.push(String((outcome.reason as Error).message));
      }
      // Key 1 is retired once (the first round); the later rounds race agent 0's newer passports with agent 1's proofs.
    }
    expect(failures).toEqual([]);
    const retired = await a.keys.retiredSince(null, 1_000);
    for (const i of humans) {
      expect(retired.filter((p) => p.subject === h(i)).map((p) => p.kid)).toEqual([hk(i, 1)]);
    }
  }, 120_000);
});
