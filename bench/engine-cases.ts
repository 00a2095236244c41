// The builder bundles shared by the in-process engine benches (issue 14):
// bench/engine-share.ts (engine against raw signatures) and bench/engine-ab.ts (two builds of core).
import type { BuildOptions } from '@proto/core';

export interface EngineCase {
  readonly name: string;
  readonly options: BuildOptions;
  /** Verifications per timed batch: enough for a batch to outlast the CPU clock's granularity. */
  readonly runs: number;
  /** Part of the default A/B set (the three tiers the targets name). */
  readonly ab: boolean;
}

export const ENGINE_CASES: readonly EngineCase[] = [
  { name: 'routine-10', options: { tier: 'routine', entries: 10 }, runs: 150, ab: true },
  { name: 'elevated-10', options: { tier: 'elevated', entries: 10 }, runs: 150, ab: true },
  { name: 'maximum-60', options: { tier: 'maximum', entries: 60 }, runs: 30, ab: true },
  { name: 'maximum-1000', options: { tier: 'maximum', entries: 1000 }, runs: 4, ab: false },
  { name: 'v1-10', options: { version: '1.0', entries: 10 }, runs: 150, ab: false },
];
