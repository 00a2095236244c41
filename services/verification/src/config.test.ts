// The verifier's trust settings at boot: revocation sources, attestation keys and anchor sources parsed and
// validated, a bad value refused with the variable named. DECISIONS D19 (operator sources), D20, D21.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatVerifierKey, noteVerifierKey } from '@proto/core';
import { ConfigError } from '@proto/service-kit';
import { describe, expect, it } from 'vitest';
import { loadVerificationConfig } from './config.ts';
import { anchorSourcesOf } from './external-checks.ts';

const KEY = Buffer.alloc(32, 7).toString('base64');
// A C2SP Ed25519 verifier key (<origin>+<key id>+<base64>).
const noteKey = noteVerifierKey('log.example/test', 'ed25519', new Uint8Array(32).fill(9));
if (!noteKey.ok) throw new Error(noteKey.error.message);
const VKEY = formatVerifierKey(noteKey.value);

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadVerificationConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('configuration accepted');
}

describe('verifier trust settings', () => {
  it('parses REVOCATION_SOURCES and ATTESTATION_TRUSTED_KEYS; unset means none', () => {
    const config = loadVerificationConfig({
      REVOCATION_SOURCES: JSON.stringify({ FR: { url: 'https://rev.example.fr/list.json', keys: [KEY] } }),
      ATTESTATION_TRUSTED_KEYS: JSON.stringify({ FR: [KEY] }),
    });
    expect(config.REVOCATION_SOURCES).toEqual({
      FR: {
        url: 'https://rev.example.fr/list.json',
        keys: [expect.objectContaining({ public_key_b64: KEY })],
      },
    });
    expect(config.ATTESTATION_TRUSTED_KEYS).toEqual({
      FR: [expect.objectContaining({ public_key_b64: KEY })],
    });
    expect(config.REVOCATION_FETCH_TIMEOUT_MS).toBe(3000);
    const bare = loadVerificationConfig({});
    expect(bare.REVOCATION_SOURCES).toEqual({});
    expect(bare.ATTESTATION_TRUSTED_KEYS).toEqual({});
    expect(anchorSourcesOf(bare)).toBeUndefined();
  });

  it.each([
    [{ REVOCATION_SOURCES: '{"FR": ' }, 'REVOCATION_SOURCES', /REVOCATION_SOURCES is not valid JSON/],
    [{ REVOCATION_SOURCES: '{"FR": {"url": "ftp://x", "keys": []}}' }, 'REVOCATION_SOURCES', /url/],
    [{ ATTESTATION_TRUSTED_KEYS: '{"FR": ["not a key"]}' }, 'ATTESTATION_TRUSTED_KEYS', /FR/],
    [{ ANCHOR_VERIFY_ETH_RPC_URL: 'localhost:8545' }, 'ANCHOR_VERIFY_ETH_RPC_URL', /http\(s\) URL/],
    [{ ANCHOR_VERIFY_ESPLORA_URL: '{"regtest": 5}' }, 'ANCHOR_VERIFY_ESPLORA_URL', /regtest/],
    [
      { ANCHOR_VERIFY_LOG_URL: 'http://log', ANCHOR_VERIFY_LOG_KEY: 'nope' },
      'ANCHOR_VERIFY_LOG_KEY',
      /verifier key/,
    ],
    [{ ANCHOR_VERIFY_LOG_KEY: VKEY }, 'ANCHOR_VERIFY_LOG_KEY', /ANCHOR_VERIFY_LOG_URL names no log/],
    [
      { ANCHOR_VERIFY_CACHE_MAX_ENTRIES: '-1' },
      'ANCHOR_VERIFY_CACHE_MAX_ENTRIES',
      /ANCHOR_VERIFY_CACHE_MAX_ENTRIES/,
    ],
    [{ ANCHOR_VERIFY_CACHE_TTL_MS: '10' }, 'ANCHOR_VERIFY_CACHE_TTL_MS', /ANCHOR_VERIFY_CACHE_TTL_MS/],
    [{ ANCHOR_VERIFY_CACHE_RETRY_TTL_MS: 'soon' }, 'ANCHOR_VERIFY_CACHE_RETRY_TTL_MS', /RETRY_TTL_MS/],
    [{ ATTESTATION_MAX_AGE_DAYS: '0' }, 'ATTESTATION_MAX_AGE_DAYS', /ATTESTATION_MAX_AGE_DAYS/],
  ])('refuses %j, naming %s', (env, variable, message) => {
    const error = refusal(env);
    expect(error.variables).toContain(variable);
    expect(error.message).toMatch(message);
  });

  it('P168: ANCHOR_FORWARD_TIMEOUT_MS defaults to 15 s and refuses a value outside 1 s to 5 min, naming it', () => {
    expect(loadVerificationConfig({}).ANCHOR_FORWARD_TIMEOUT_MS).toBe(15_000);
    expect(loadVerificationConfig({ ANCHOR_FORWARD_TIMEOUT_MS: '4000' }).ANCHOR_FORWARD_TIMEOUT_MS).toBe(
      4000,
    );
    for (const bad of ['0', '999', '300001', 'soon'])
      expect(() => loadVerificationConfig({ ANCHOR_FORWARD_TIMEOUT_MS: bad })).toThrow(ConfigError);
    expect(() => loadVerificationConfig({ ANCHOR_FORWARD_TIMEOUT_MS: '5' })).toThrow(
      /ANCHOR_FORWARD_TIMEOUT_MS/,
    );
  });

  it('defaults the per-receipt anchor cache and the attestation maximum age (issue 12)', () => {
    expect(loadVerificationConfig({})).toMatchObject({
      ANCHOR_VERIFY_CACHE_MAX_ENTRIES: 10000,
      ANCHOR_VERIFY_CACHE_TTL_MS: 600000,
      ANCHOR_VERIFY_CACHE_RETRY_TTL_MS: 30000,
      ATTESTATION_MAX_AGE_DAYS: 30,
    });
    expect(
      loadVerificationConfig({ ANCHOR_VERIFY_CACHE_MAX_ENTRIES: '0' }).ANCHOR_VERIFY_CACHE_MAX_ENTRIES,
    ).toBe(0);
  });

  it('reads REVOCATION_UNLISTED_JURISDICTIONS and REVOCATION_ALLOW_INSECURE_HTTP (issue 12)', () => {
    const bare = loadVerificationConfig({});
    expect(bare.REVOCATION_UNLISTED_JURISDICTIONS).toEqual([]);
    expect(bare.REVOCATION_ALLOW_INSECURE_HTTP).toBe(false);
    const set = loadVerificationConfig({
      REVOCATION_UNLISTED_JURISDICTIONS: 'zz, EU',
      REVOCATION_ALLOW_INSECURE_HTTP: 'true',
      REVOCATION_SOURCES: JSON.stringify({ us: { url: 'http://rev.example.us/list.json', keys: [KEY] } }),
    });
    expect(set.REVOCATION_UNLISTED_JURISDICTIONS).toEqual(['ZZ', 'EU']);
    expect(Object.keys(set.REVOCATION_SOURCES)).toEqual(['US']);
    expect(refusal({ REVOCATION_UNLISTED_JURISDICTIONS: 'ZZ,all' }).variables).toEqual([
      'REVOCATION_UNLISTED_JURISDICTIONS',
    ]);
    expect(
      refusal({
        REVOCATION_SOURCES: JSON.stringify({ US: { url: 'http://rev.example.us/list.json', keys: [KEY] } }),
      }).variables,
    ).toContain('REVOCATION_SOURCES');
  });

  it('builds the anchor sources from ANCHOR_VERIFY_* only (never from receipts)', () => {
    const config = loadVerificationConfig({
      ANCHOR_VERIFY_ETH_RPC_URL: '{"ethereum": "https://eth.example/rpc", "base": "https://base.example"}',
      ANCHOR_VERIFY_ESPLORA_URL: 'https://esplora.example/api/',
      ANCHOR_VERIFY_LOG_URL: 'https://log.example, https://log2.example/v1',
      ANCHOR_VERIFY_LOG_KEY: VKEY,
      ANCHOR_VERIFY_MIN_CONFIRMATIONS: '6',
    });
    expect(anchorSourcesOf(config)).toEqual({
      evmRpc: { ethereum: 'https://eth.example/rpc', base: 'https://base.example' },
      esplora: 'https://esplora.example/api',
      logs: [
        { url: 'https://log.example', keys: [VKEY] },
        { url: 'https://log2.example/v1', keys: [VKEY] },
      ],
      minConfirmations: 6,
      timeoutMs: 5000,
      maxResponseBytes: 16 * 1024 * 1024,
    });
    const json = loadVerificationConfig({
      ANCHOR_VERIFY_LOG_URL: JSON.stringify([
        'https://a.example',
        { url: 'https://b.example', keys: [VKEY] },
      ]),
    });
    expect(json.ANCHOR_VERIFY_LOG_URL).toEqual([
      { url: 'https://a.example' },
      { url: 'https://b.example', keys: [VKEY] },
    ]);
  });
});

describe('VERIFIER_POLICY read as strictly as the CLI reads --policy (P495)', () => {
  // A member twice: JSON.parse keeps the last, a reader that keeps the first (or `proto verify --policy`, which
  // refuses the file) judges bundles under another policy than the one this service runs.
  const twice = '{"risk_overrides":{"high":"maximum"},"risk_overrides":{}}';

  it('refuses a member named twice, in the variable and in a policy file, naming the member', () => {
    for (const value of [twice, writePolicyFile(twice)]) {
      const error = refusal({ VERIFIER_POLICY: value });
      expect(error.variables).toEqual(['VERIFIER_POLICY']);
      expect(error.message).toMatch(/VERIFIER_POLICY has no single reading: .*risk_overrides/);
    }
  });

  it('refuses a number with no finite value and keeps reading a well-formed policy', () => {
    expect(refusal({ VERIFIER_POLICY: '{"risk_overrides":{},"x":1e400}' }).message).toMatch(
      /VERIFIER_POLICY has no single reading/,
    );
    const policy = '{"risk_overrides":{"high":"maximum"}}';
    expect(loadVerificationConfig({ VERIFIER_POLICY: policy }).VERIFIER_POLICY).toEqual({
      risk_overrides: { high: 'maximum' },
    });
  });
});

function writePolicyFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'verifier-policy-'));
  const file = join(dir, 'policy.json');
  writeFileSync(file, text);
  return file;
}

describe('per-chain anchor source maps read strictly (P495)', () => {
  it('refuses a chain or network named twice instead of trusting the last URL', () => {
    for (const variable of ['ANCHOR_VERIFY_ETH_RPC_URL', 'ANCHOR_VERIFY_ESPLORA_URL']) {
      const error = refusal({
        [variable]: '{"sepolia":"https://rpc.example/a","sepolia":"https://attacker.example/b"}',
      });
      expect(error.variables).toEqual([variable]);
      expect(error.message).toMatch(new RegExp(`${variable} has no single reading: .*sepolia`));
      expect(error.message).not.toContain('attacker.example');
    }
  });
});
