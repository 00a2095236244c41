// ANCHOR_SERVICE_URL with userinfo (`https://user:pass@host`) can never anchor: fetch refuses such a URL. The log
// refuses it at boot, naming the variable, and neither the loader's error nor the real process's output repeats the
// password (P196; P189 had to strip it from the anchoring messages instead).
import { ConfigError } from '@proto/service-kit';
import { describe, expect, it } from 'vitest';
import { loadTransparencyLogConfig } from '../../src/config.ts';
import { tempDataDir } from '../../src/test-support.ts';
import { boot } from './testing/boot-main.ts';

const SECRET = 'p4ss-0123456789-anchor';
const WITH_CREDENTIALS = [
  `https://ops-user-7:${SECRET}@anchor.example`,
  `http://ops-user-7:${SECRET}@127.0.0.1:3001/prefix/`,
  `https://${SECRET}@anchor.example`,
  `https://:${SECRET}@anchor.example`,
];

describe('P196: ANCHOR_SERVICE_URL with credentials is refused at boot, without repeating them', () => {
  it('the config loader refuses every URL with userinfo, naming the variable and not the secret', () => {
    for (const url of WITH_CREDENTIALS) {
      let error: unknown;
      try {
        loadTransparencyLogConfig({ ANCHOR_SERVICE_URL: url });
      } catch (caught) {
        error = caught;
      }
      expect(error, url).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variables).toEqual(['ANCHOR_SERVICE_URL']);
      expect((error as ConfigError).message).toContain('ANCHOR_TOKEN');
      expect((error as ConfigError).message).not.toContain(SECRET);
      expect((error as ConfigError).message).not.toContain('ops-user-7');
    }
    // Without userinfo the same URLs load as before.
    expect(
      loadTransparencyLogConfig({ ANCHOR_SERVICE_URL: 'https://anchor.example' }).ANCHOR_SERVICE_URL,
    ).toBe('https://anchor.example');
  });

  it('the real service process exits 1 at boot, and its output names the variable, not the password', async () => {
    const data = await tempDataDir('anchor-url-credentials');
    try {
      const { code, output } = await boot({
        DATA_DIR: data.dir,
        ANCHOR_SERVICE_URL: `http://ops-user-7:${SECRET}@127.0.0.1:9/`,
      });
      expect(code, output).toBe(1);
      expect(output).toContain('ANCHOR_SERVICE_URL');
      expect(output).not.toContain(SECRET);
    } finally {
      await data.remove();
    }
  }, 30_000);
});
