// Boots the real services as child processes with credentials that fail validation: the output names
// the variable and the rule, never the value. Issue 12 row e (secrets never leave the process).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootEnv, bootMain } from '@proto/testing';
import { describe, expect, it } from 'vitest';

const SERVICES = fileURLToPath(new URL('../../../', import.meta.url));

/** Runs `services/<service>/src/main.ts` with `env` until it exits; its code and all it printed. */
const boot = (service: string, env: Record<string, string>) =>
  bootMain(join(SERVICES, service, 'src', 'main.ts'), {
    ...bootEnv(`secrets-${service}-`),
    ...env,
  });

/** The value, and the fragments of it that would still give it away. */
function fragments(value: string): string[] {
  const trimmed = value.trim();
  return [trimmed, JSON.stringify(value).slice(1, -1), trimmed.slice(0, 16), trimmed.slice(-16)];
}

const ETH_KEY = `0x${'4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d'}\n`;
const DB_PASSWORD = 'Db-Passw0rd-Never-Printed';

const cases: Array<{ service: string; variable: string; env: Record<string, string>; secret: string[] }> = [
  {
    service: 'anchor',
    variable: 'ETH_PRIVATE_KEY',
    env: {
      ETH_RPC_URL: 'http://127.0.0.1:1',
      ETH_CHAIN_ID: '31337',
      ETH_CONTRACT: `0x${'ab'.repeat(20)}`,
      ETH_PRIVATE_KEY: ETH_KEY,
    },
    secret: fragments(ETH_KEY),
  },
  {
    service: 'anchor',
    variable: 'DATABASE_URL',
    env: {
      TL_URL: 'http://127.0.0.1:1',
      DATABASE_URL: `postgress://anchor:${DB_PASSWORD}@db.internal/anchor`,
    },
    secret: [DB_PASSWORD],
  },
  {
    service: 'anchor',
    variable: 'BTC_PRIVATE_KEY',
    env: {
      BTC_ESPLORA_URL: 'http://127.0.0.1:1',
      BTC_PRIVATE_KEY: 'cVt4o7BGAig1UXywgGSmARhxMdzP5qvQsxKkSsc1XEkw3tDTQFpy ',
    },
    secret: fragments('cVt4o7BGAig1UXywgGSmARhxMdzP5qvQsxKkSsc1XEkw3tDTQFpy'),
  },
  {
    service: 'verification',
    variable: 'REDIS_URL',
    env: { REDIS_URL: `redis//:${DB_PASSWORD}@cache.internal:6379` },
    secret: [DB_PASSWORD],
  },
  {
    service: 'verification',
    variable: 'ANCHOR_VERIFY_ETH_RPC_URL',
    env: { ANCHOR_VERIFY_ETH_RPC_URL: `ftp://rpc-user:${DB_PASSWORD}@rpc.internal/v3/key` },
    secret: [DB_PASSWORD],
  },
  {
    service: 'transparency-log',
    variable: 'OPERATOR_TOKEN',
    env: { OPERATOR_TOKEN: 'short token\n' },
    secret: ['short token'],
  },
  {
    service: 'transparency-log',
    variable: 'LOG_ED25519_KEY',
    env: { LOG_ED25519_KEY: 'bm90LWEta2V5LWF0LWFsbC1idXQtc2VjcmV0LWFueXdheQ==' },
    secret: fragments('bm90LWEta2V5LWF0LWFsbC1idXQtc2VjcmV0LWFueXdheQ=='),
  },
  {
    service: 'revocation',
    variable: 'REVOCATION_SIGNING_KEY',
    env: {
      ISSUER: 'did:web:revocation.example',
      JURISDICTION: 'EU',
      REVOCATION_SIGNING_KEY: 'c2VjcmV0LXNpZ25pbmcta2V5LXRoYXQtaXMtd3JvbmctbGVuZ3Ro\n',
    },
    secret: fragments('c2VjcmV0LXNpZ25pbmcta2V5LXRoYXQtaXMtd3JvbmctbGVuZ3Ro'),
  },
];

describe('row e: a credential that fails validation is never printed', () => {
  it.each(cases)('$service with a bad $variable exits 1 naming it, without its value', async (c) => {
    const { code, output } = await boot(c.service, c.env);
    expect(code, output).toBe(1);
    expect(output).toContain(c.variable);
    for (const fragment of c.secret)
      expect(output, `leaked ${JSON.stringify(fragment)}`).not.toContain(fragment);
  });
});
