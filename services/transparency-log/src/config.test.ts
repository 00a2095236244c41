// The log's configuration: SPEC.md/issue defaults, and a bad value stops the service with the variable's name.
// DECISIONS D18 (origin, batching, checkpoint timer), docs/architecture.md §3 (env-schema, clear boot errors).
import { ConfigError } from '@proto/service-kit';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOG_ORIGIN, loadTransparencyLogConfig } from './config.ts';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadTransparencyLogConfig({});
    expect(config).toMatchObject({
      PORT: 3002,
      LOG_ORIGIN: DEFAULT_LOG_ORIGIN,
      BATCH_MAX: 256,
      BATCH_WAIT_MS: 20,
      MAX_PENDING: 10_000,
      CHECKPOINT_INTERVAL_MS: 1000,
      ENTRIES_PAGE_MAX: 1000,
      ADD_RATE_LIMIT_PER_MINUTE: 0,
      ROOT_ANCHOR_INTERVAL_MS: 3_600_000,
      LOG_ACCEPT_NEW_KEYS: false,
      DATA_DIR: './data',
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.ANCHOR_SERVICE_URL).toBeUndefined();
  });

  it('names the variable at fault', () => {
    const bad: Array<[Record<string, string>, string]> = [
      [{ LOG_ORIGIN: 'my log' }, 'LOG_ORIGIN'],
      [{ LOG_ORIGIN: 'a+b' }, 'LOG_ORIGIN'],
      [{ BATCH_MAX: '0' }, 'BATCH_MAX'],
      [{ BATCH_WAIT_MS: 'soon' }, 'BATCH_WAIT_MS'],
      [{ CHECKPOINT_INTERVAL_MS: '1' }, 'CHECKPOINT_INTERVAL_MS'],
      [{ ANCHOR_SERVICE_URL: 'ftp://anchor' }, 'ANCHOR_SERVICE_URL'],
      [{ DATABASE_SCHEMA: 'Bad-Schema' }, 'DATABASE_SCHEMA'],
      [{ CRYPTO_BACKEND: 'fast' }, 'CRYPTO_BACKEND'],
    ];
    for (const [env, variable] of bad) {
      let error: unknown;
      try {
        loadTransparencyLogConfig(env);
      } catch (caught) {
        error = caught;
      }
      expect(error, JSON.stringify(env)).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variables).toContain(variable);
    }
  });
});
