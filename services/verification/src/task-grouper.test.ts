// How a group's outcome reaches each of its bundles (P109). A bundle whose verification throws inside a
// worker cannot be made from real input (the engine answers every bundle with a verdict), so the pool
// here is a stand-in that answers the way the worker's `groupOf` does: one result or failure per bundle.
import { describe, expect, it } from 'vitest';
import { taskGrouper } from './verification-run.ts';
import type { VerifyTask, VerifyTaskFailure, VerifyTaskResult } from './worker.ts';

const task = (n: number) => ({ format: 'json', now: n }) as unknown as VerifyTask;
const answered = (n: number) => ({ kind: 'bad_request', message: `answer ${n}` }) as VerifyTaskResult;

interface Calls {
  single: number;
  groups: number[];
}

/** A pool answering each bundle by the `now` it carries; bundles listed in `throwing` fail alone. */
function standInPool(calls: Calls, throwing: ReadonlySet<number>, lose = false) {
  return {
    run: async (t: VerifyTask) => {
      calls.single++;
      return answered(t.now);
    },
    runGroup: async (group: readonly VerifyTask[]) => {
      calls.groups.push(group.length);
      if (lose) throw new Error('worker lost');
      return group.map((t): VerifyTaskResult | VerifyTaskFailure =>
        throwing.has(t.now) ? { kind: 'failed', message: `bundle ${t.now} threw` } : answered(t.now),
      );
    },
  };
}

async function settle(dispatch: ReturnType<typeof taskGrouper>, count: number) {
  return Promise.allSettled(Array.from({ length: count }, (_, n) => dispatch(task(n), [], 1000)));
}

describe('taskGrouper', () => {
  it('rejects only the bundle that threw; the rest of its group is answered, each with its own result', async () => {
    const calls: Calls = { single: 0, groups: [] };
    const outcomes = await settle(taskGrouper(standInPool(calls, new Set([1, 5])), 4), 8);
    expect(calls.groups).toEqual([4, 4]);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('bundle 1 threw'));
    expect((outcomes[6] as PromiseFulfilledResult<VerifyTaskResult>).value).toEqual(answered(6));
  });

  it('rejects every bundle of a group the pool lost, and no bundle of another group', async () => {
    const calls: Calls = { single: 0, groups: [] };
    const lost = await settle(taskGrouper(standInPool(calls, new Set(), true), 3), 3);
    expect(lost.every((o) => o.status === 'rejected')).toBe(true);
    const kept = await settle(taskGrouper(standInPool(calls, new Set()), 3), 3);
    expect(kept.every((o) => o.status === 'fulfilled')).toBe(true);
  });

  it('sends a bundle alone in the one-task form, and a short result list rejects the bundles it missed', async () => {
    const calls: Calls = { single: 0, groups: [] };
    const [only] = await settle(taskGrouper(standInPool(calls, new Set()), 4), 1);
    expect(only).toEqual({ status: 'fulfilled', value: answered(0) });
    expect(calls).toEqual({ single: 1, groups: [] });

    const short = {
      run: async () => answered(0),
      runGroup: async (group: readonly VerifyTask[]) => group.slice(0, 2).map((t) => answered(t.now)),
    };
    const outcomes = await settle(taskGrouper(short, 3), 3);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toEqual(new Error('no result for this bundle'));
  });
});
