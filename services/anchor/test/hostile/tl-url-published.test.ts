// P481: TL_URL is published. The log adapter's base URL is the `log_url` of /health's chain list and of every
// transparency-log receipt (GET /anchor/:hash answers anyone). An operator's TL_URL written with `user:password@`
// (fetch refuses such a URL, so no append ever worked) or with a query (`?api_key=…`, which the adapter's paths then
// followed) was served as written to every caller. Now the boot stops, naming TL_URL and never its value. The real
// service as a child process (its exit and output), and in-process over HTTP for the control.
import { ConfigError } from '@proto/service-kit';
import { createStoreTarget } from '@proto/store/testing';
import { describe, expect, it } from 'vitest';
import { testApp, testConfig } from '../../src/testing/app.ts';
import { bootAnchor as boot } from './testing/boot.ts';

const SECRET = 'hunter2-Never-Published';

describe('P481: a TL_URL that would publish a credential, or that no append can use, stops the boot', () => {
  it('user:password@ in TL_URL: exit 1 naming TL_URL, the password nowhere in the output', async () => {
    const { code, output } = await boot({ TL_URL: `http://anchor-bot:${SECRET}@127.0.0.1:9` });
    expect(code).toBe(1);
    expect(output).toMatch(/TL_URL/);
    expect(output).not.toContain(SECRET);
    expect(output).not.toContain('anchor-bot');
  }, 60_000);

  it.each([
    ['a query', `http://127.0.0.1:9/?api_key=${SECRET}`],
    ['a fragment', `http://127.0.0.1:9/#${SECRET}`],
    ['a user name alone', `http://${SECRET}@127.0.0.1:9`],
    ['no URL at all', `http://exa mple/${SECRET}`],
  ])('%s: ConfigError naming TL_URL, never its value', (_name, url) => {
    let thrown: unknown;
    try {
      testConfig({ TL_URL: url });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variables).toEqual(['TL_URL']);
    expect((thrown as Error).message).not.toContain(SECRET);
  });

  it('a plain TL_URL with a path boots, and /health publishes it without its trailing slash', async () => {
    const target = await createStoreTarget('sqlite', 'anchor-tl-url');
    const app = await testApp({ TL_URL: 'http://127.0.0.1:9/log/' }, await target.open());
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const health = (await (await fetch(`${base}/health`)).json()) as { chains: { log_url?: string }[] };
      expect(health.chains.map((c) => c.log_url)).toEqual(['http://127.0.0.1:9/log']);
    } finally {
      await app.close();
      await target.cleanup();
    }
  });
});

describe('P487: a BTC_ESPLORA_URL that is no URL stops the boot, never repeated', () => {
  // P610: one with user:password@ is now taken and sent as Basic (creds3-esplora-basic.test.ts).
  it('no URL at all: ConfigError naming BTC_ESPLORA_URL, never its value', () => {
    let thrown: unknown;
    try {
      testConfig({
        BTC_ESPLORA_URL: `http://exa mple/${SECRET}`,
        BTC_PRIVATE_KEY: 'cVt4o7BGAig1UXywgGSmARhxMdzP5qvQsxKkSsc1XEkw3tDTQFpy',
        BTC_NETWORK: 'testnet',
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variables).toEqual(['BTC_ESPLORA_URL']);
    expect((thrown as Error).message).not.toContain(SECRET);
  });
});
