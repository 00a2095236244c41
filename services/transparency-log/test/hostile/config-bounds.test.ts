// P545: the log's own timers and queue had a minimum only. A timer past Node's range (2^31 - 1 ms) fires after 1 ms
// (a checkpoint or anchor interval set in the wrong unit ran its pass without pause), a timeout that large never ends
// a hung witness or anchor call, and an unbounded MAX_PENDING lets the sequencer's queue take all memory. Each such
// value now stops the boot with a ConfigError naming the variable and its bound; the bounds themselves load. The real
// configuration loader, as `serve.ts` calls it.
import { configBoundFaults } from '@proto/service-kit/testing';
import { describe, expect, it } from 'vitest';
import { loadTransparencyLogConfig } from '../../src/config.ts';

const BOUNDS: readonly (readonly [string, number])[] = [
  ['MAX_PENDING', 1_000_000],
  ['CHECKPOINT_INTERVAL_MS', 3_600_000],
  ['ROOT_ANCHOR_INTERVAL_MS', 604_800_000],
  ['ANCHOR_TIMEOUT_MS', 300_000],
  ['LOG_WITNESS_TIMEOUT_MS', 300_000],
  ['LOG_WITNESS_RETRY_MAX_MS', 86_400_000],
  ['LOG_WITNESS_DOWN_LOG_INTERVAL_MS', 86_400_000],
];

describe('P545: unrealistic log timing and queue values stop the boot, naming the variable', () => {
  it('past each bound (bound + 1, 1e12) a ConfigError names the variable and its bound; the bound loads', () => {
    expect(configBoundFaults(loadTransparencyLogConfig, BOUNDS)).toEqual([]);
  });
});
