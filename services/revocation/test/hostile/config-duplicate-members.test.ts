// P483: the JSON an operator gives in an environment variable is read as strictly as a request body (P2). A member
// name twice (`{"US": {…}, "US": {…}}` in REVOCATION_SOURCES, a key's `valid_until` twice in
// ATTESTATION_PREVIOUS_KEYS) was read by JSON.parse, which keeps the last value silently: the list key or URL a
// verifier trusts, or a retired key's window, was not the one a reader of the file (or any first-wins tool that
// merged it) saw, while `"US"` beside `"us"` was already refused as "configured twice". Now the boot stops naming the
// variable and the member. The real verification service's boot (its REVOCATION_SOURCES and ATTESTATION_TRUSTED_KEYS
// are read by the kit) and the revocation service's configuration loader.
import { ConfigError } from '@proto/service-kit';
import { startApp } from '@proto/verification/testing';
import { describe, expect, it } from 'vitest';
import { loadRevocationConfig } from '../../src/config.ts';

const KEY_A = Buffer.alloc(32, 1).toString('base64');
const KEY_B = Buffer.alloc(32, 2).toString('base64');
const source = (url: string, key: string) => `{"url": "${url}", "keys": ["${key}"]}`;

async function bootFailure(env: Record<string, string>): Promise<unknown> {
  try {
    const app = await startApp(env);
    await app.close();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('P483: a member name twice in a JSON environment variable stops the boot', () => {
  it('REVOCATION_SOURCES naming "US" twice: the verification service refuses to start, naming the variable', async () => {
    const text = `{"US": ${source('https://lists.example/us.json', KEY_A)}, "US": ${source('https://other.example/us.json', KEY_B)}}`;
    const thrown = await bootFailure({ REVOCATION_SOURCES: text });
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variables).toContain('REVOCATION_SOURCES');
    expect((thrown as Error).message).toMatch(/"US".*twice|twice.*US/);
  });

  it('a key entry of REVOCATION_SOURCES with public_key_b64 twice is refused too', async () => {
    const text = `{"US": {"url": "https://lists.example/us.json", "keys": [{"public_key_b64": "${KEY_A}", "public_key_b64": "${KEY_B}"}]}}`;
    const thrown = await bootFailure({ REVOCATION_SOURCES: text });
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toMatch(/public_key_b64/);
  });

  it('ATTESTATION_TRUSTED_KEYS naming "US" twice: the verification service refuses to start', async () => {
    const thrown = await bootFailure({
      ATTESTATION_TRUSTED_KEYS: `{"US": ["${KEY_A}"], "US": ["${KEY_B}"]}`,
    });
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variables).toContain('ATTESTATION_TRUSTED_KEYS');
  });

  it("ATTESTATION_PREVIOUS_KEYS with a retired key's valid_until twice: the revocation service's config refuses it", () => {
    const text = `[{"public_key_b64": "${KEY_A}", "valid_from": "2025-01-01T00:00:00Z", "valid_until": "2026-01-01T00:00:00Z", "valid_until": "2099-01-01T00:00:00Z"}]`;
    let thrown: unknown;
    try {
      loadRevocationConfig({ ATTESTATION_PREVIOUS_KEYS: text });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variables).toEqual(['ATTESTATION_PREVIOUS_KEYS']);
    expect((thrown as Error).message).toMatch(/valid_until/);
  });

  it('the same variables without a repeated member still boot', async () => {
    const app = await startApp({
      REVOCATION_SOURCES: `{"US": ${source('https://lists.example/us.json', KEY_A)}}`,
      ATTESTATION_TRUSTED_KEYS: `{"US": ["${KEY_A}"]}`,
    });
    await app.close();
    const config = loadRevocationConfig({
      ATTESTATION_PREVIOUS_KEYS: `[{"public_key_b64": "${KEY_A}", "valid_from": "2025-01-01T00:00:00Z", "valid_until": "2026-01-01T00:00:00Z"}]`,
    });
    expect(config.ATTESTATION_PREVIOUS_KEYS).toHaveLength(1);
  });
});
