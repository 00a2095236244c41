// The emergency secret check on its own: a registered token is proved only by its secret, and an agent without one
// is never "proved", whatever secret is sent (P305). The route's answers are tested over HTTP in test/hostile.
import { describe, expect, it } from 'vitest';
import { secretProvesRegisteredToken, tokenOfSecret } from './emergency.ts';
import { newEmergencySecret } from './test-support.ts';

describe('secretProvesRegisteredToken', () => {
  it('is true for the secret of the registered token only', () => {
    const secret = newEmergencySecret();
    expect(tokenOfSecret(secret.hex)).toBe(secret.token);
    expect(secretProvesRegisteredToken(secret.hex, secret.token)).toBe(true);
    expect(secretProvesRegisteredToken(newEmergencySecret().hex, secret.token)).toBe(false);
  });

  it('is false for every secret when no token is registered', () => {
    for (let i = 0; i < 20; i++) {
      expect(secretProvesRegisteredToken(newEmergencySecret().hex, undefined)).toBe(false);
    }
  });

  it('is false for a secret that is not 64 lower-case hex', () => {
    const secret = newEmergencySecret();
    expect(secretProvesRegisteredToken(secret.hex.toUpperCase(), secret.token)).toBe(false);
    expect(secretProvesRegisteredToken(secret.hex.slice(2), secret.token)).toBe(false);
  });
});
