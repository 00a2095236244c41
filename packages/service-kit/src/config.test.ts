// Configuration validation: defaults, coercion, and ConfigError messages that name the variable.
// docs/architecture.md §3 (env-schema; a bad value stops the process with a clear message), D17 (TRUST_PROXY).
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  defineEnv,
  loadConfig,
  parseTrustProxy,
  SHARED_ENV_PROPERTIES,
  type SharedConfig,
} from './config.ts';

describe('loadConfig', () => {
  it('applies the shared defaults', () => {
    const config = loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, {});
    expect(config).toEqual({
      PORT: 3000,
      HOST: '0.0.0.0',
      LOG_LEVEL: 'info',
      PROTOCOL_PROFILE: 'proto',
      TRUST_PROXY: false,
      DATA_DIR: './data',
      SHUTDOWN_TIMEOUT_MS: 10000,
      REQUEST_TIMEOUT_MS: 120000,
      KEEP_ALIVE_TIMEOUT_MS: 72000,
      MAX_EVENT_LOOP_DELAY_MS: 1000,
      PROBE_REUSE_MS: 1000,
    });
  });

  it('refuses a request timeout under a second, which would cut off ordinary uploads', () => {
    expect(() => loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, { REQUEST_TIMEOUT_MS: '0' })).toThrow(
      /REQUEST_TIMEOUT_MS/,
    );
  });

  it('bounds the keep-alive idle timeout: at least a second, at most ten minutes (P587)', () => {
    for (const value of ['0', '999', '600001']) {
      expect(() => loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, { KEEP_ALIVE_TIMEOUT_MS: value })).toThrow(
        /KEEP_ALIVE_TIMEOUT_MS/,
      );
    }
    expect(
      loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, { KEEP_ALIVE_TIMEOUT_MS: '1000' })
        .KEEP_ALIVE_TIMEOUT_MS,
    ).toBe(1000);
  });

  it('coerces values, treats empty strings as unset and ignores unrelated variables', () => {
    const config = loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, {
      PORT: '3002',
      REDIS_URL: '',
      PROTOCOL_PROFILE: 'dcp-ai',
      TRUST_PROXY: '2',
      HOME: '/root',
    });
    expect(config.PORT).toBe(3002);
    expect(config.PROTOCOL_PROFILE).toBe('dcp-ai');
    expect(config.TRUST_PROXY).toBe(2);
    expect(config.REDIS_URL).toBeUndefined();
    expect(config).not.toHaveProperty('HOME');
  });

  it('lets a service override a shared default and add its own variables', () => {
    const props = defineEnv({
      PORT: { type: 'integer', default: 3001 },
      MODE: { type: 'string', enum: ['a', 'b'], default: 'a' },
    });
    expect(loadConfig<{ PORT: number; MODE: string }>(props, {})).toMatchObject({ PORT: 3001, MODE: 'a' });
  });

  it.each([
    ['PORT', 'eighty', /PORT must be integer \(got "eighty"\)/],
    ['PORT', '70000', /PORT must be <= 65535/],
    ['PROTOCOL_PROFILE', 'proto2', /PROTOCOL_PROFILE must be one of proto, dcp-ai \(got "proto2"\)/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL must be one of/],
    ['REDIS_URL', 'localhost:6379', /REDIS_URL must match pattern/],
    ['TRUST_PROXY', '10.0.0.0/99', /TRUST_PROXY must be true, false, a hop count/],
  ])('rejects %s=%s with a ConfigError naming the variable', (name, value, message) => {
    let caught: unknown;
    try {
      loadConfig(SHARED_ENV_PROPERTIES, { [name]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).message).toMatch(message);
    expect((caught as ConfigError).variables).toEqual([name]);
  });

  it('reports a missing required variable by name', () => {
    const props = defineEnv({ ANCHOR_KEY: { type: 'string', required: true } });
    expect(() => loadConfig(props, {})).toThrow(/^Invalid configuration: ANCHOR_KEY is required$/);
    expect(loadConfig<{ ANCHOR_KEY: string }>(props, { ANCHOR_KEY: 'k' }).ANCHOR_KEY).toBe('k');
  });
});

describe('parseTrustProxy', () => {
  it('reads booleans, hop counts and address lists', () => {
    expect(parseTrustProxy('true')).toBe(true);
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy('127.0.0.1, 10.0.0.0/8,::1,fd00::/8')).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
    ]);
    expect(() => parseTrustProxy('loopback')).toThrow(ConfigError);
  });
});
