// P545: the log's own timers and queue had a minimum only. A timer past Node's range (2^31 - 1 ms) fires after 1 ms
// (a checkpoint or anchor interval set in the wrong unit ran its pass without pause), a timeout that large never ends
// a hung witness or anchor call, and an unbounded MAX_PENDING lets the sequencer's queue take all memory. Each such
// value now stops the boot with a ConfigError naming the variable and its bound; the bounds themselves load. The real
// configuration loader, as `serve.ts` calls it.
import { ConfigError } from '@proto/service-kit';
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

function refusal(env: Record<string, string>): unknown {
  try {
    loadTransparencyLogConfig(env);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('P545: unrealistic log timing and queue values stop the boot, naming the variable', () => {
  it.each(
    BOUNDS.flatMap(([name, bound]) =>
      [String(bound + 1), '1e12'].map((value) => [name, bound, value] as const),
    ),
  )('%s (bound %d) = %s: ConfigError naming it', (name, bound, value) => {
    const thrown = refusal({ [name]: value });
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variables).toEqual([name]);
    expect((thrown as Error).message).toContain(`${name} must be <= ${bound}`);
  });

  it('the bounds themselves load (control)', () => {
    const config = loadTransparencyLogConfig(
      Object.fromEntries(BOUNDS.map(([name, bound]) => [name, String(bound)])),
    ) as unknown as Record<string, number>;
    for (const [name, bound] of BOUNDS) expect(config[name]).toBe(bound);
  });
});
