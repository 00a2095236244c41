// bench/profile-diff.ts (P138): a profile's first seconds left out, and a side's busy samples turned into
// CPU ms per bundle with the /proc figure, idle left out of the share.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { accountProfile, type CpuProfile } from './profile-categories.ts';
import { sideCost, trimmedProfile } from './profile-diff.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/categories.cpuprofile', import.meta.url));
const profile = JSON.parse(readFileSync(FIXTURE, 'utf8')) as CpuProfile;

describe('profile diff', () => {
  it('leaves out the samples of the first microseconds asked, and only those', () => {
    expect(trimmedProfile(profile, 0).samples).toEqual(profile.samples);
    let at = 0;
    let kept = profile.samples.length;
    for (const [i, delta] of profile.timeDeltas.entries()) {
      at += delta;
      if (at >= 1000) {
        kept = profile.samples.length - (i + 1);
        break;
      }
    }
    const trimmed = trimmedProfile(profile, 1000);
    expect(trimmed.samples).toHaveLength(kept);
    expect(trimmed.samples).toEqual(profile.samples.slice(profile.samples.length - kept));
    expect(trimmed.timeDeltas).toEqual(profile.timeDeltas.slice(profile.timeDeltas.length - kept));
    expect(trimmedProfile(profile, 1e12).samples).toEqual([]);
  });

  it('shares the /proc CPU out by busy samples: idle counts for nothing, the rest adds up to it', () => {
    const account = accountProfile(profile);
    const cost = sideCost([account, account], 3.09);
    // 3,790 µs sampled of which 700 idle: 3,090 busy, so 1 µs of a thread is 0.001 ms … twice over.
    expect(cost.byCategory.get('signatures')).toBeCloseTo((2 * 1500 * 3.09) / (2 * 3090), 9);
    expect(cost.byCategory.has('idle')).toBe(false);
    const sum = [...cost.byCategory.values()].reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(3.09, 9);
    const functions = [...cost.byFunction.values()].reduce((a, b) => a + b, 0);
    expect(functions).toBeCloseTo(3.09, 9);
    expect(cost.busyShare).toBeCloseTo(3090 / 3790, 9);
  });
});
