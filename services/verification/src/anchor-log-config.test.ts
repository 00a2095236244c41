// ANCHOR_VERIFY_WITNESS_KEYS / ANCHOR_VERIFY_WITNESS_QUORUM and per-log witnesses in ANCHOR_VERIFY_LOG_URL:
// parsed at boot, a quorum outside 1..n or a witness without the log's keys refused with a ConfigError. P60.
import { cosignerKey, formatCosignerKey, formatVerifierKey, noteVerifierKey } from '@proto/core';
import { ConfigError } from '@proto/service-kit';
import { describe, expect, it } from 'vitest';
import { loadVerificationConfig } from './config.ts';

const noteKey = noteVerifierKey('log.example/test', 'ed25519', new Uint8Array(32).fill(9));
if (!noteKey.ok) throw new Error(noteKey.error.message);
const VKEY = formatVerifierKey(noteKey.value);

function witness(name: string, fill: number): string {
  const key = cosignerKey(name, new Uint8Array(32).fill(fill));
  if (!key.ok) throw new Error(key.error.message);
  return formatCosignerKey(key.value);
}
const [W1, W2, W3] = [witness('w.example/1', 1), witness('w.example/2', 2), witness('w.example/3', 3)];

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadVerificationConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('configuration accepted');
}

const LOG = { ANCHOR_VERIFY_LOG_URL: 'https://log.example', ANCHOR_VERIFY_LOG_KEY: VKEY };

describe('witness keys and quorum for the logs (P60)', () => {
  it('applies ANCHOR_VERIFY_WITNESS_KEYS and the quorum to every log; k defaults to all witnesses', () => {
    const set = loadVerificationConfig({
      ...LOG,
      ANCHOR_VERIFY_WITNESS_KEYS: `${W1}, ${W2},${W3}`,
      ANCHOR_VERIFY_WITNESS_QUORUM: '2',
    });
    expect(set.ANCHOR_VERIFY_LOG_URL).toEqual([
      { url: 'https://log.example', keys: [VKEY], witnesses: [W1, W2, W3], quorum: 2 },
    ]);
    const all = loadVerificationConfig({ ...LOG, ANCHOR_VERIFY_WITNESS_KEYS: `${W1},${W2}` });
    expect(all.ANCHOR_VERIFY_LOG_URL?.[0]?.quorum).toBe(2);
    expect(loadVerificationConfig(LOG).ANCHOR_VERIFY_LOG_URL).toEqual([
      { url: 'https://log.example', keys: [VKEY] },
    ]);
  });

  it('reads {"url", "keys", "witnesses", "quorum"} per log; others take the variables', () => {
    const config = loadVerificationConfig({
      ANCHOR_VERIFY_LOG_URL: JSON.stringify([
        { url: 'https://a.example', keys: [VKEY], witnesses: [W1, W2], quorum: 1 },
        { url: 'https://b.example', keys: [VKEY] },
      ]),
      ANCHOR_VERIFY_WITNESS_KEYS: W3,
    });
    expect(config.ANCHOR_VERIFY_LOG_URL).toEqual([
      { url: 'https://a.example', keys: [VKEY], witnesses: [W1, W2], quorum: 1 },
      { url: 'https://b.example', keys: [VKEY], witnesses: [W3], quorum: 1 },
    ]);
  });

  it.each([
    [
      { ...LOG, ANCHOR_VERIFY_WITNESS_KEYS: W1, ANCHOR_VERIFY_WITNESS_QUORUM: '2' },
      'ANCHOR_VERIFY_WITNESS_QUORUM',
      /from 1 to the number of witness keys \(1\), got 2/,
    ],
    [
      { ...LOG, ANCHOR_VERIFY_WITNESS_KEYS: W1, ANCHOR_VERIFY_WITNESS_QUORUM: '0' },
      'ANCHOR_VERIFY_WITNESS_QUORUM',
      /ANCHOR_VERIFY_WITNESS_QUORUM/,
    ],
    [
      { ...LOG, ANCHOR_VERIFY_WITNESS_KEYS: W1, ANCHOR_VERIFY_WITNESS_QUORUM: 'two' },
      'ANCHOR_VERIFY_WITNESS_QUORUM',
      /ANCHOR_VERIFY_WITNESS_QUORUM/,
    ],
    [
      { ...LOG, ANCHOR_VERIFY_WITNESS_QUORUM: '1' },
      'ANCHOR_VERIFY_WITNESS_QUORUM',
      /no log has witness keys/,
    ],
    [
      { ...LOG, ANCHOR_VERIFY_WITNESS_KEYS: `${W1},nope` },
      'ANCHOR_VERIFY_WITNESS_KEYS',
      /ANCHOR_VERIFY_WITNESS_KEYS\[1\]/,
    ],
    [{ ...LOG, ANCHOR_VERIFY_WITNESS_KEYS: VKEY }, 'ANCHOR_VERIFY_WITNESS_KEYS', /type 0x04/],
    [{ ...LOG, ANCHOR_VERIFY_WITNESS_KEYS: `${W1},${W1}` }, 'ANCHOR_VERIFY_WITNESS_KEYS', /listed twice/],
    [
      { ANCHOR_VERIFY_LOG_URL: 'https://log.example', ANCHOR_VERIFY_WITNESS_KEYS: W1 },
      'ANCHOR_VERIFY_WITNESS_KEYS',
      /no log verifier keys/,
    ],
    [{ ANCHOR_VERIFY_WITNESS_KEYS: W1 }, 'ANCHOR_VERIFY_WITNESS_KEYS', /ANCHOR_VERIFY_LOG_URL names no log/],
    [
      {
        ANCHOR_VERIFY_LOG_URL: JSON.stringify([
          { url: 'https://a.example', keys: [VKEY], witnesses: [W1], quorum: 3 },
        ]),
      },
      'ANCHOR_VERIFY_LOG_URL',
      /\[0\]\.quorum must be an integer from 1/,
    ],
    [
      { ANCHOR_VERIFY_LOG_URL: JSON.stringify([{ url: 'https://a.example', keys: [VKEY], quorum: 1 }]) },
      'ANCHOR_VERIFY_LOG_URL',
      /quorum is set without witnesses/,
    ],
  ])('refuses %j, naming %s', (env, variable, message) => {
    const error = refusal(env);
    expect(error.variables).toContain(variable);
    expect(error.message).toMatch(message);
  });
});
