// P545: EMERGENCY_WINDOW_S, the window of the two emergency revocation limits, had a minimum only. Once an agent's
// attempts are spent (by anyone, all IPs together, EMERGENCY_MAX_PER_AGENT) its emergency revocation is refused for
// the rest of the window, with a Retry-After that long: a window set in milliseconds by mistake (60000 for a minute:
// 16 h) is still under the bound, but 1e9 or 1e12 locked an agent's emergency revocation for decades. Such a value
// now stops the boot with a ConfigError naming the variable and its bound (1 day); the bound itself loads. The real
// configuration loader, as `serve.ts` calls it.
import { ConfigError } from '@proto/service-kit';
import { describe, expect, it } from 'vitest';
import { loadRevocationConfig } from '../../src/config.ts';

const BOUNDS: readonly (readonly [string, number])[] = [['EMERGENCY_WINDOW_S', 86_400]];

function refusal(env: Record<string, string>): unknown {
  try {
    loadRevocationConfig(env);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('P545: an unrealistic emergency window stops the boot, naming the variable', () => {
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
    const config = loadRevocationConfig(
      Object.fromEntries(BOUNDS.map(([name, bound]) => [name, String(bound)])),
    ) as unknown as Record<string, number>;
    for (const [name, bound] of BOUNDS) expect(config[name]).toBe(bound);
  });
});
