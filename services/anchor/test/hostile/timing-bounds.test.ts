// P521: the anchor service's timing variables had no upper bound, and the integer reader took `Infinity` and `1e400`
// as integers. An interval set in the wrong unit (1e12 ms), 2^53 or `Infinity` booted: a poll interval past Node's
// timer range (2^31 - 1 ms) fires after 1 ms instead (the worker then polls every chain's API without pause), and a
// batch interval of 2^53 ms makes every pass throw on an invalid date. Now each such value is a ConfigError naming
// the variable and its bound, before anything starts. The real service as a child process for the boot, the config
// loader for every variable.
import { ConfigError } from '@proto/service-kit';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../../src/testing/app.ts';
import { bootAnchor } from './testing/boot.ts';

const TIMING = [
  'ANCHOR_POLL_INTERVAL_MS',
  'BATCH_INTERVAL_MS',
  'ANCHOR_WAIT_MS',
  'ANCHOR_LEASE_MS',
  'ANCHOR_REORG_WATCH_DEPTH',
  'ETH_CONFIRMATIONS',
  'BTC_CONFIRMATIONS',
  'ETH_BUMP_AFTER_MS',
  'BTC_RBF_AFTER_MS',
  'SHUTDOWN_TIMEOUT_MS',
];

function refusal(env: Record<string, string>): unknown {
  try {
    testConfig(env);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('P521: unrealistic anchor timing values stop the boot, naming the variable', () => {
  it('ANCHOR_POLL_INTERVAL_MS=1e12: exit 1 naming the variable and its bound', async () => {
    const { code, output } = await bootAnchor({ ANCHOR_POLL_INTERVAL_MS: '1e12' }, 8_000);
    expect(output).not.toMatch(/TimeoutOverflowWarning/);
    expect(code).toBe(1);
    expect(output).toMatch(/ANCHOR_POLL_INTERVAL_MS must be <= 3600000/);
  }, 30_000);

  it.each(TIMING.flatMap((name) => ['1e12', '9007199254740992', 'Infinity', '1e400'].map((v) => [name, v])))(
    '%s=%s: ConfigError naming it',
    (name, value) => {
      const thrown = refusal({ [name]: value });
      expect(thrown).toBeInstanceOf(ConfigError);
      expect((thrown as ConfigError).variables).toEqual([name]);
      expect((thrown as Error).message).toContain(name);
    },
  );

  it('Infinity is no integer for a variable without a maximum either', () => {
    const thrown = refusal({ ANCHOR_MAX_BACKLOG: 'Infinity' });
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variables).toEqual(['ANCHOR_MAX_BACKLOG']);
  });

  it('the bounds themselves boot (control)', () => {
    const config = testConfig({
      ANCHOR_POLL_INTERVAL_MS: '3600000',
      BATCH_INTERVAL_MS: '86400000',
      ANCHOR_WAIT_MS: '600000',
      ANCHOR_LEASE_MS: '3600000',
      ANCHOR_REORG_WATCH_DEPTH: '10000',
      ETH_CONFIRMATIONS: '1000',
      BTC_CONFIRMATIONS: '1000',
      ETH_BUMP_AFTER_MS: '604800000',
      BTC_RBF_AFTER_MS: '2592000000',
      SHUTDOWN_TIMEOUT_MS: '3600000',
    }) as unknown as Record<string, number>;
    expect(config['ANCHOR_POLL_INTERVAL_MS']).toBe(3_600_000);
    expect(config['BTC_RBF_AFTER_MS']).toBe(2_592_000_000);
  });
});
