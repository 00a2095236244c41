// The log's configuration: SPEC.md/issue defaults, and a bad value stops the service with the variable's name.
// DECISIONS D18 (origin, batching, checkpoint timer), docs/architecture.md §3 (env-schema, clear boot errors).

import { cosignerKey, formatCosignerKey, selectCryptoBackend } from '@proto/core';
import { ConfigError } from '@proto/service-kit';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOG_ORIGIN, loadTransparencyLogConfig } from './config.ts';

function witnessVkey(name: string): string {
  const key = cosignerKey(name, selectCryptoBackend().generateKeyPair('ed25519').publicKey);
  if (!key.ok) throw new Error(key.error.message);
  return formatCosignerKey(key.value);
}
const VKEY_A = witnessVkey('w1.example/witness');
const VKEY_B = witnessVkey('w2.example/witness');

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
    expect(config.LOG_WITNESSES).toEqual([]);
    expect(config.LOG_WITNESS_QUORUM).toBe(0);
    expect(config.LOG_WITNESS_TIMEOUT_MS).toBe(5000);
  });

  it('reads LOG_WITNESSES as "<url> <vkey>" pairs or JSON, with every witness as the default quorum', () => {
    const listed = loadTransparencyLogConfig({
      LOG_WITNESSES: `https://w1.example/prefix/ ${VKEY_A} , http://10.0.0.2:3004 ${VKEY_B}`,
    });
    expect(listed.LOG_WITNESSES.map((w) => [w.url, w.id])).toEqual([
      ['https://w1.example/prefix', VKEY_A.split('+').slice(0, 2).join('+')],
      ['http://10.0.0.2:3004', VKEY_B.split('+').slice(0, 2).join('+')],
    ]);
    expect(listed.LOG_WITNESS_QUORUM).toBe(2);
    const json = loadTransparencyLogConfig({
      LOG_WITNESSES: JSON.stringify([{ url: 'https://w1.example', key: VKEY_A }]),
      LOG_WITNESS_QUORUM: '1',
    });
    expect(json.LOG_WITNESSES[0]?.key.name).toBe('w1.example/witness');
    expect(json.LOG_WITNESS_QUORUM).toBe(1);
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
      [{ LOG_WITNESSES: `ftp://w.example ${VKEY_A}` }, 'LOG_WITNESSES'],
      [{ LOG_WITNESSES: 'https://w.example w.example+00000000+AAAA' }, 'LOG_WITNESSES'],
      [{ LOG_WITNESSES: `https://w.example ${VKEY_A}, https://w2.example ${VKEY_A}` }, 'LOG_WITNESSES'],
      [{ LOG_WITNESSES: '[{"url": "https://w.example"}]' }, 'LOG_WITNESSES'],
      [{ LOG_WITNESSES: '[not json' }, 'LOG_WITNESSES'],
      [{ LOG_WITNESS_QUORUM: '1' }, 'LOG_WITNESS_QUORUM'],
      [{ LOG_WITNESSES: `https://w.example ${VKEY_A}`, LOG_WITNESS_QUORUM: '2' }, 'LOG_WITNESS_QUORUM'],
      [{ LOG_WITNESSES: `https://w.example ${VKEY_A}`, LOG_WITNESS_QUORUM: '0' }, 'LOG_WITNESS_QUORUM'],
      [{ LOG_WITNESS_TIMEOUT_MS: '5' }, 'LOG_WITNESS_TIMEOUT_MS'],
      // P463: P462's per-chain table.
      [{ ROOT_ANCHOR_FINAL_CONFIRMATIONS: 'evm=0' }, 'ROOT_ANCHOR_FINAL_CONFIRMATIONS'],
      [{ ROOT_ANCHOR_FINAL_CONFIRMATIONS: 'bitcoin=6,bitcoin=7' }, 'ROOT_ANCHOR_FINAL_CONFIRMATIONS'],
      [{ ROOT_ANCHOR_FINAL_CONFIRMATIONS: 'ethereum=64=1' }, 'ROOT_ANCHOR_FINAL_CONFIRMATIONS'],
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
