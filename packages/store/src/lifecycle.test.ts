// Tests of agent lifecycle state on every dialect: the machine, history, the vitality chain, and races.
// Covers D16 (SPEC.md "Agent lifecycle": four moves, 404/409 outcomes, GENESIS chain, atomic under concurrency).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransitionResult, VitalityAppendResult } from './repositories/lifecycle.ts';
import type { Store } from './store.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget, steppingClock } from './testing.ts';

/** SPEC.md "States and transitions" — the machine core will own; the store only applies what it is given. */
const MACHINE: Record<string, readonly string[]> = {
  commissioned: ['active'],
  active: ['declining', 'decommissioned'],
  declining: ['decommissioned'],
  decommissioned: [],
};

const hashOf = (label: string): string => `sha256:${Buffer.from(label).toString('hex').padEnd(64, '0')}`;

describe.each(dialectsUnderTest())('lifecycle on %s', (dialect) => {
  let target: StoreTarget;
  let store: Store;
  /** A second Store on the same database: another process on SQLite, another replica on PostgreSQL. */
  let twin: Store;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'lifecycle');
    store = await target.open({ clock: steppingClock() });
    twin = await target.open();
  });
  afterAll(async () => {
    await target.cleanup();
  });

  async function activeAgent(agentId: string): Promise<void> {
    expect(await store.lifecycle.commission(agentId)).toBe('created');
    expect(await store.lifecycle.transition(agentId, 'active', { allowed: MACHINE })).toEqual({
      ok: true,
      from: 'commissioned',
      to: 'active',
    });
  }

  it('commissions once; a second commission changes nothing', async () => {
    expect(await store.lifecycle.commission('agent-c', '2025-02-01T10:00:00.000Z')).toBe('created');
    expect(await store.lifecycle.get('agent-c')).toEqual({
      agent_id: 'agent-c',
      state: 'commissioned',
      created_at: '2025-02-01T10:00:00.000Z',
      updated_at: '2025-02-01T10:00:00.000Z',
      last_vitality_hash: null,
      vitality_count: 0,
      history_count: 1,
    });
    await store.lifecycle.transition('agent-c', 'active', { allowed: MACHINE });
    expect(await store.lifecycle.commission('agent-c')).toBe('exists');
    expect((await store.lifecycle.get('agent-c'))?.state).toBe('active');
    expect(await store.lifecycle.get('agent-unknown')).toBeUndefined();
  });

  it('walks the machine and records every move in the history', async () => {
    await store.lifecycle.commission('agent-walk', new Date('2025-03-01T00:00:00Z'));
    const steps: [string, string][] = [
      ['commissioned', 'active'],
      ['active', 'declining'],
      ['declining', 'decommissioned'],
    ];
    for (const [from, to] of steps) {
      const at = `2025-03-0${steps.findIndex((s) => s[1] === to) + 2}T00:00:00.000Z`;
      expect(
        await store.lifecycle.transition('agent-walk', to, {
          allowed: MACHINE,
          expectedFrom: from,
          reason: `to ${to}`,
          at,
        }),
      ).toEqual({ ok: true, from, to });
    }
    const status = await store.lifecycle.get('agent-walk');
    expect(status).toMatchObject({
      state: 'decommissioned',
      history_count: 4,
      updated_at: '2025-03-04T00:00:00.000Z',
    });
    const history = await store.lifecycle.history('agent-walk');
    expect(history.map((h) => [h.from_state, h.to_state, h.reason, h.at])).toEqual([
      [null, 'commissioned', null, '2025-03-01T00:00:00.000Z'],
      ['commissioned', 'active', 'to active', '2025-03-02T00:00:00.000Z'],
      ['active', 'declining', 'to declining', '2025-03-03T00:00:00.000Z'],
      ['declining', 'decommissioned', 'to decommissioned', '2025-03-04T00:00:00.000Z'],
    ]);
    expect(history.map((h) => h.seq)).toEqual([...history.map((h) => h.seq)].sort((a, b) => a - b));
  });

  it('refuses moves outside the machine and names the allowed ones', async () => {
    await store.lifecycle.commission('agent-no');
    expect(await store.lifecycle.transition('agent-no', 'declining', { allowed: MACHINE })).toEqual({
      ok: false,
      reason: 'not_allowed',
      current: 'commissioned',
      allowedMoves: ['active'],
    });
    await store.lifecycle.transition('agent-no', 'active', { allowed: MACHINE });
    await store.lifecycle.transition('agent-no', 'decommissioned', { allowed: MACHINE });
    expect(await store.lifecycle.transition('agent-no', 'active', { allowed: MACHINE })).toEqual({
      ok: false,
      reason: 'not_allowed',
      current: 'decommissioned',
      allowedMoves: [],
    });
    // A state the given machine does not list has no moves (and inherited names are not states).
    expect(
      await store.lifecycle.transition('agent-no', 'active', {
        allowed: { constructor: ['active'] } as never,
      }),
    ).toMatchObject({ ok: false, reason: 'not_allowed', allowedMoves: [] });
    expect((await store.lifecycle.get('agent-no'))?.history_count).toBe(3);
  });

  it('refuses a move whose from_state is not the current state, and an unknown agent', async () => {
    await activeAgent('agent-from');
    expect(
      await store.lifecycle.transition('agent-from', 'decommissioned', {
        allowed: MACHINE,
        expectedFrom: 'declining',
      }),
    ).toEqual({
      ok: false,
      reason: 'from_mismatch',
      current: 'active',
      allowedMoves: ['declining', 'decommissioned'],
    });
    expect(await store.lifecycle.transition('agent-ghost', 'active', { allowed: MACHINE })).toEqual({
      ok: false,
      reason: 'unknown_agent',
      allowedMoves: [],
    });
    expect((await store.lifecycle.get('agent-from'))?.state).toBe('active');
  });

  it('P207: refuses a dated move before the latest one; a clock reading before it records the move at it', async () => {
    await store.lifecycle.commission('agent-floor', '2025-06-01T12:00:00.000Z');
    const early = await store.lifecycle.transition('agent-floor', 'active', {
      allowed: MACHINE,
      at: '2025-06-01T13:59:59.999+02:00', // 11:59:59.999Z, a millisecond before the commissioning
    });
    expect(early).toEqual({
      ok: false,
      reason: 'before_latest',
      current: 'commissioned',
      allowedMoves: ['active'],
      latestAt: '2025-06-01T12:00:00.000Z',
    });
    expect((await store.lifecycle.get('agent-floor'))?.history_count).toBe(1);
    // The same instant in another zone is not before it.
    expect(
      await store.lifecycle.transition('agent-floor', 'active', {
        allowed: MACHINE,
        at: '2025-06-01T14:00:00+02:00',
      }),
    ).toEqual({ ok: true, from: 'commissioned', to: 'active' });
    // The stepping clock reads 2025-01 here: an undated move is recorded at the latest move's time, not before it.
    expect(await store.lifecycle.transition('agent-floor', 'decommissioned', { allowed: MACHINE })).toEqual({
      ok: true,
      from: 'active',
      to: 'decommissioned',
    });
    const history = await store.lifecycle.history('agent-floor');
    expect(history.map((h) => h.at)).toEqual([
      '2025-06-01T12:00:00.000Z',
      '2025-06-01T14:00:00+02:00',
      '2025-06-01T14:00:00+02:00',
    ]);
  });

  it('chains vitality reports from GENESIS by compare-and-set', async () => {
    await activeAgent('agent-vit');
    expect(await store.lifecycle.appendVitality('agent-vit', hashOf('r1'), 'genesis')).toEqual({
      ok: false,
      reason: 'chain_mismatch',
      expected: 'GENESIS',
    });
    expect(await store.lifecycle.appendVitality('agent-vit', hashOf('r1'), 'GENESIS')).toEqual({ ok: true });
    expect(await store.lifecycle.appendVitality('agent-vit', hashOf('r2'), 'GENESIS')).toEqual({
      ok: false,
      reason: 'chain_mismatch',
      expected: hashOf('r1'),
    });
    expect(await store.lifecycle.appendVitality('agent-vit', hashOf('r2'), hashOf('r1'))).toEqual({
      ok: true,
    });
    expect(await store.lifecycle.get('agent-vit')).toMatchObject({
      last_vitality_hash: hashOf('r2'),
      vitality_count: 2,
      state: 'active',
    });
    expect(await store.lifecycle.appendVitality('agent-ghost', hashOf('x'), 'GENESIS')).toEqual({
      ok: false,
      reason: 'unknown_agent',
      expected: 'GENESIS',
    });
  });

  function expectSingleWinner(results: TransitionResult[], agentState: string | undefined): void {
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    const winner = winners[0] as { from: string; to: string };
    expect(winner.from).toBe('active');
    expect(agentState).toBe(winner.to);
    for (const r of results) {
      if (r.ok) continue;
      expect(r.reason).toBe('from_mismatch');
      expect(r.current).toBe(winner.to);
    }
  }

  it('lets exactly one of 20 parallel conflicting transitions from one state succeed', async () => {
    await activeAgent('agent-race');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.lifecycle.transition('agent-race', i % 2 === 0 ? 'declining' : 'decommissioned', {
          allowed: MACHINE,
          expectedFrom: 'active',
          reason: `attempt ${i}`,
        }),
      ),
    );
    const status = await store.lifecycle.get('agent-race');
    expectSingleWinner(results, status?.state);
    expect(status?.history_count).toBe(3);
    const history = await store.lifecycle.history('agent-race');
    expect(history.at(-1)?.to_state).toBe(status?.state);
  });

  it('lets exactly one of 20 parallel identical moves succeed when the machine forbids repeating it', async () => {
    await activeAgent('agent-race-same');
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        store.lifecycle.transition('agent-race-same', 'decommissioned', { allowed: MACHINE }),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    for (const r of results.filter((x) => !x.ok)) {
      expect(r).toEqual({ ok: false, reason: 'not_allowed', current: 'decommissioned', allowedMoves: [] });
    }
    expect((await store.lifecycle.get('agent-race-same'))?.history_count).toBe(3);
  });

  it('keeps transitions atomic across two Store instances on the same database', async () => {
    await activeAgent('agent-twin-race');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? store : twin).lifecycle.transition(
          'agent-twin-race',
          i % 4 < 2 ? 'declining' : 'decommissioned',
          { allowed: MACHINE, expectedFrom: 'active' },
        ),
      ),
    );
    const status = await twin.lifecycle.get('agent-twin-race');
    expectSingleWinner(results, status?.state);
    expect(status?.history_count).toBe(3);
  });

  function expectSingleAppend(results: VitalityAppendResult[], hashes: string[]): string {
    const okIndexes = results.flatMap((r, i) => (r.ok ? [i] : []));
    expect(okIndexes).toHaveLength(1);
    const head = hashes[okIndexes[0] as number] as string;
    for (const r of results)
      if (!r.ok) expect(r).toEqual({ ok: false, reason: 'chain_mismatch', expected: head });
    return head;
  }

  it('advances the vitality chain once per head when 20 reports race, across two Store instances', async () => {
    await activeAgent('agent-vit-race');
    let head = 'GENESIS';
    for (let round = 0; round < 4; round++) {
      const hashes = Array.from({ length: 20 }, (_, i) => hashOf(`round${round}-report${i}`));
      const results = await Promise.all(
        hashes.map((hash, i) =>
          (i % 2 === 0 ? store : twin).lifecycle.appendVitality('agent-vit-race', hash, head),
        ),
      );
      head = expectSingleAppend(results, hashes);
    }
    expect(await store.lifecycle.get('agent-vit-race')).toMatchObject({
      last_vitality_hash: head,
      vitality_count: 4,
    });
  });

  it('rejects bad input to writes before touching the database', async () => {
    await expect(store.lifecycle.commission('not valid!')).rejects.toThrow(TypeError);
    await expect(store.lifecycle.commission('agent-bad-time', 'yesterday')).rejects.toThrow(TypeError);
    await expect(store.lifecycle.appendVitality('agent-vit', '', 'GENESIS')).rejects.toThrow(TypeError);
    expect(await store.lifecycle.get('agent-bad-time')).toBeUndefined();
  });
});
