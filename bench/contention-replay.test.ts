// The arithmetic of k (P127): medians of each side, and the ratio taken within each round before its median,
// so that a host switching speed between rounds moves both sides of a ratio alike.
import { describe, expect, it } from 'vitest';
import {
  contentionOf,
  controlRatios,
  ratiosOf,
  type SideKind,
  type SideReading,
} from './contention-replay.ts';
import { median } from './median.ts';

const side = (kind: SideKind, cpuMs: number, otherCores = 0): SideReading => ({
  kind,
  cpuMs,
  cpuShare: 1,
  steal: 0,
  otherCores,
});

describe('contention arithmetic', () => {
  it('median of odd and even counts, NaN of none', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it("k is the median of each round's both ÷ one, not the ratio of the sides' medians", () => {
    // The host runs round 1 at ×1.5 cost: both sides of that round move together.
    const rounds = [
      [side('one', 4), side('both', 4.4), side('spin', 4.2)],
      [side('spin', 6.3), side('both', 6.6), side('one', 6)],
      [side('one', 4), side('both', 4.8), side('spin', 4)],
    ];
    const ratios = ratiosOf(rounds, 'both');
    expect(ratios).toHaveLength(3);
    for (const [i, r] of [1.1, 1.1, 1.2].entries()) expect(ratios[i]).toBeCloseTo(r, 12);
    const c = contentionOf(rounds);
    expect(c.k).toBeCloseTo(1.1, 12);
    expect(c.kSpin).toBeCloseTo(1.05, 12);
    expect(c.oneMs).toBe(4);
    expect(c.bothMs).toBe(4.8);
    expect(c.spinMs).toBe(4.2);
    // Same against same: round 1's one side ÷ round 0's, round 2's ÷ round 1's.
    expect(controlRatios(rounds)).toEqual([1.5, 4 / 6]);
    expect(c.control).toBeCloseTo((1.5 + 4 / 6) / 2, 12);
  });

  it('leaves out a round in which another process kept a core busy during any side', () => {
    const c = contentionOf([
      [side('one', 2), side('both', 2.2)],
      [side('one', 2, 1.0), side('both', 2.6)],
      [side('one', 2), side('both', 3, 0.3)],
      [side('one', 2), side('both', 2.2, 0.2)],
    ]);
    expect(c.measured).toHaveLength(4);
    expect(c.rounds).toHaveLength(2);
    expect(c.k).toBeCloseTo(1.1, 12);
  });

  it('without spin sides, kSpin and spinMs are NaN', () => {
    const c = contentionOf([[side('one', 2), side('both', 2.2)]]);
    expect(c.k).toBeCloseTo(1.1, 12);
    expect(c.kSpin).toBeNaN();
    expect(c.spinMs).toBeNaN();
  });
});
