// The config layer's secret rule: which variables count as credentials, and scrubbing their values.
// Issue 12 item 4.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';
import { describeJsonError, isSecretVariable, redactSecrets } from './secret-values.ts';

describe('secret variables', () => {
  it('counts keys, tokens, passwords and URLs as secret by name', () => {
    for (const name of ['ETH_PRIVATE_KEY', 'BTC_PRIVATE_KEY', 'OPERATOR_TOKEN', 'TL_TOKEN', 'DATABASE_URL']) {
      expect(isSecretVariable(name), name).toBe(true);
    }
    for (const name of ['REDIS_URL', 'LOG_MLDSA_KEY', 'REVOCATION_SIGNING_KEY', 'DB_PASSWORD']) {
      expect(isSecretVariable(name), name).toBe(true);
    }
    for (const name of ['PORT', 'LOG_LEVEL', 'VERIFIER_MODE', 'TRUST_PROXY']) {
      expect(isSecretVariable(name), name).toBe(false);
    }
  });

  it('never quotes a secret value in a validation error, whatever the variable is called (secret: true)', () => {
    const properties = {
      API_THING: { type: 'string', pattern: '^ok$', secret: true },
      PLAIN: { type: 'string', pattern: '^ok$' },
    } as const;
    let error: unknown;
    try {
      loadConfig(properties, { API_THING: 'hunter2-secret\n', PLAIN: 'visible-value' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain('API_THING must match pattern');
    expect(message).toContain('leading or trailing whitespace');
    expect(message).not.toContain('hunter2');
    expect(message).toContain('"visible-value"');
  });

  it('scrubs every spelling of a secret value and any URL user-info', () => {
    const env = { OPERATOR_TOKEN: 'first-token-0001, second-token-0002\n', PORT: '3000' };
    const text = redactSecrets(
      'tokens "first-token-0001, second-token-0002\\n" / second-token-0002 at postgres://me:pw@db/x port 3000',
      env,
    );
    expect(text).not.toMatch(/first-token|second-token|me:pw/);
    expect(text).toContain('postgres://[redacted]@db/x');
    expect(text).toContain('port 3000');
  });

  it('describes a JSON error by position only', () => {
    let error: unknown;
    try {
      JSON.parse('{"url": "https://user:topsecret@host"');
    } catch (caught) {
      error = caught;
    }
    expect(describeJsonError(error)).not.toContain('topsecret');
  });
});
