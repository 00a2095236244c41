// Signing keys and configuration: keys from the environment (64-byte or seed form), generated keys in
// DATA_DIR with mode 0600 and never logged, and configuration errors that stop the boot. D20, D21, D22.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '@proto/service-kit';
import { describe, expect, it } from 'vitest';
import { REVOCATION_KEY_FILE } from './app.ts';
import { loadRevocationConfig } from './config.ts';
import { parseSecretKey } from './keys.ts';
import { currentList, startService, tempDir } from './test-support.ts';

describe('signing keys', () => {
  it('generates keys into DATA_DIR with mode 0600, reuses them on restart, and never logs a secret', async () => {
    const dir = tempDir('keys');
    try {
      const service = await startService({ dataDir: dir.dir });
      const file = join(dir.dir, REVOCATION_KEY_FILE);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir.dir, 'attestation-signing-key')).mode & 0o777).toBe(0o600);
      const secret = readFileSync(file, 'utf8').trim();
      const list = await currentList(service);
      const publicKey = (list['signature'] as Record<string, string>)['public_key_b64'];
      expect(Buffer.from(secret, 'base64').subarray(32).toString('base64')).toBe(publicKey);
      await service.close();
      const logs = service.logs.join('\n');
      expect(logs).toContain(file);
      expect(logs).not.toContain(secret);
      expect(logs).not.toContain(Buffer.from(secret, 'base64').subarray(0, 32).toString('base64'));

      const again = await startService({ dataDir: dir.dir });
      expect(((await currentList(again))['signature'] as Record<string, string>)['public_key_b64']).toBe(
        publicKey,
      );
      await again.close();
    } finally {
      dir.remove();
    }
  });

  it('takes REVOCATION_SIGNING_KEY as a 64-byte SDK secret key or a 32-byte seed', async () => {
    const seed = Buffer.alloc(32, 9);
    const full = parseSecretKey(seed.toString('base64'), 'K');
    expect(parseSecretKey(Buffer.from(full).toString('base64'), 'K')).toEqual(full);
    const dir = tempDir('envkey');
    const service = await startService({
      dataDir: dir.dir,
      env: { REVOCATION_SIGNING_KEY: seed.toString('base64') },
    });
    try {
      const list = await currentList(service);
      expect((list['signature'] as Record<string, string>)['public_key_b64']).toBe(
        Buffer.from(full.subarray(32)).toString('base64'),
      );
    } finally {
      await service.close();
      dir.remove();
    }
  });

  it('re-issues the list at start-up when the signing key changed, with a higher list_number', async () => {
    const dir = tempDir('rekey');
    try {
      const first = await startService({
        dataDir: dir.dir,
        env: { REVOCATION_SIGNING_KEY: Buffer.alloc(32, 1).toString('base64') },
      });
      const before = await currentList(first);
      await first.close();
      const second = await startService({
        dataDir: dir.dir,
        env: { REVOCATION_SIGNING_KEY: Buffer.alloc(32, 2).toString('base64') },
      });
      const after = await currentList(second);
      await second.close();
      expect(after.list_number).toBe(before.list_number + 1);
      expect(after['signature']).not.toEqual(before['signature']);
    } finally {
      dir.remove();
    }
  });

  it('stops the boot with a ConfigError for a bad key or bad settings', () => {
    const base = { DATA_DIR: '/tmp/unused' };
    expect(() => parseSecretKey('not base64', 'REVOCATION_SIGNING_KEY')).toThrow(ConfigError);
    const mismatched = Buffer.concat([Buffer.alloc(32, 1), Buffer.alloc(32, 2)]).toString('base64');
    expect(() => parseSecretKey(mismatched, 'REVOCATION_SIGNING_KEY')).toThrow(/does not belong/);
    expect(() =>
      loadRevocationConfig({ ...base, ATTESTATION_PREVIOUS_KEYS: '[{"public_key_b64":"AAAA"}]' }),
    ).toThrow(ConfigError);
    expect(() =>
      loadRevocationConfig({
        ...base,
        ATTESTATION_PREVIOUS_KEYS: JSON.stringify([{ public_key_b64: Buffer.alloc(32).toString('base64') }]),
      }),
    ).toThrow(/valid_from and valid_until/);
    expect(() => loadRevocationConfig({ ...base, JURISDICTION: 'bad jurisdiction' })).toThrow(ConfigError);
    expect(() => loadRevocationConfig({ ...base, LIST_VALIDITY_S: '1' })).toThrow(ConfigError);
    const config = loadRevocationConfig(base);
    expect(config).toMatchObject({
      PORT: 3003,
      LIST_MAX_AGE_S: 300,
      LIST_VALIDITY_S: 86_400,
      ATTESTATION_VALIDITY_S: 2_592_000,
    });
  });
});
