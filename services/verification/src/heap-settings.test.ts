// P99: the V8 heap settings are validated with the rest of the configuration, and what main.ts applies
// before the configuration loads is read exactly as the configuration reads it.
import { ConfigError } from '@proto/service-kit';
import { describe, expect, it } from 'vitest';
import { loadVerificationConfig } from './config.ts';
import {
  DEFAULT_HEAP_GROWING_PERCENT,
  DEFAULT_WORKER_YOUNG_GENERATION_MB,
  heapGrowingPercentOf,
} from './heap-settings.ts';

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadVerificationConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('configuration accepted');
}

describe('V8 heap settings (P99)', () => {
  it('defaults both when unset', () => {
    const config = loadVerificationConfig({});
    expect(config.VERIFY_HEAP_GROWING_PERCENT).toBe(DEFAULT_HEAP_GROWING_PERCENT);
    expect(config.VERIFY_WORKER_YOUNG_GENERATION_MB).toBe(DEFAULT_WORKER_YOUNG_GENERATION_MB);
  });

  it('refuses values out of range or not integers, naming the variable', () => {
    for (const value of ['-1', '401', '12.5', 'abc', 'true']) {
      expect(refusal({ VERIFY_HEAP_GROWING_PERCENT: value }).message).toMatch(/VERIFY_HEAP_GROWING_PERCENT/);
    }
    for (const value of ['-1', '1025', '1.5', 'big']) {
      expect(refusal({ VERIFY_WORKER_YOUNG_GENERATION_MB: value }).message).toMatch(
        /VERIFY_WORKER_YOUNG_GENERATION_MB/,
      );
    }
  });

  it('applies before the configuration loads exactly the percent the configuration then holds', () => {
    // Whatever the configuration accepts, the early reading agrees (what it refuses stops the boot).
    for (const text of ['0', '25', ' 25 ', '0x19', '1e1', '400', '401', '-5', '2.5', 'abc', '25%', '']) {
      let configured: number | undefined;
      try {
        configured = loadVerificationConfig({
          VERIFY_HEAP_GROWING_PERCENT: text,
        }).VERIFY_HEAP_GROWING_PERCENT;
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
      }
      const early = heapGrowingPercentOf(text, DEFAULT_HEAP_GROWING_PERCENT);
      if (configured !== undefined) expect({ text, early }).toEqual({ text, early: configured });
    }
    expect(heapGrowingPercentOf(undefined, 7)).toBe(7);
  });
});
