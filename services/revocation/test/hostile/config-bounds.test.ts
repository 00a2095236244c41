// P545: EMERGENCY_WINDOW_S, the window of the two emergency revocation limits, had a minimum only. Once an agent's
// attempts are spent (by anyone, all IPs together, EMERGENCY_MAX_PER_AGENT) its emergency revocation is refused for
// the rest of the window, with a Retry-After that long: a window set in milliseconds by mistake (60000 for a minute:
// 16 h) is still under the bound, but 1e9 or 1e12 locked an agent's emergency revocation for decades. Such a value
// now stops the boot with a ConfigError naming the variable and its bound (1 day); the bound itself loads. The real
// configuration loader, as `serve.ts` calls it.
import { configBoundFaults } from '@proto/service-kit/testing';
import { describe, expect, it } from 'vitest';
import { loadRevocationConfig } from '../../src/config.ts';

const BOUNDS: readonly (readonly [string, number])[] = [['EMERGENCY_WINDOW_S', 86_400]];

describe('P545: an unrealistic emergency window stops the boot, naming the variable', () => {
  it('past each bound (bound + 1, 1e12) a ConfigError names the variable and its bound; the bound loads', () => {
    expect(configBoundFaults(loadRevocationConfig, BOUNDS)).toEqual([]);
  });
});
