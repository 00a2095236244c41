// The verify page at / over real HTTP: strict CSP, the log the page may call, and CONSOLE_LOG_URL validation.
// Issue 17 (console); PREAMBLE: new variables validated at boot.
import { ConfigError } from '@proto/service-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { loadVerificationConfig } from './config.ts';
import { type RunningApp, startApp } from './test-support.ts';

describe('console page of the verification service', () => {
  const running: RunningApp[] = [];
  afterEach(async () => {
    for (const app of running.splice(0)) await app.close();
  });

  it('serves the verify page under a CSP that allows scripts, styles and fetches from itself only', async () => {
    const app = await startApp();
    running.push(app);
    const page = await fetch(`${app.url}/`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain('/console/verify/verify.js');
    const config = (await (await fetch(`${app.url}/console/config.json`)).json()) as Record<string, unknown>;
    expect(config).toMatchObject({ page: 'verify', verifier_mode: 'hybrid_preferred' });
    expect(config['log_url']).toBeUndefined();
    // The API keeps the service-wide Helmet policy; the console's is only on console routes.
    const health = await fetch(`${app.url}/health`);
    expect(health.headers.get('content-security-policy')).not.toContain("connect-src 'self';");
  });

  it('lets the page call the configured log, and only its origin', async () => {
    const app = await startApp({ CONSOLE_LOG_URL: 'https://log.example.org/tlog/' });
    running.push(app);
    const csp = (await fetch(`${app.url}/`)).headers.get('content-security-policy') ?? '';
    expect(csp).toContain("connect-src 'self' https://log.example.org;");
    const config = (await (await fetch(`${app.url}/console/config.json`)).json()) as Record<string, unknown>;
    expect(config['log_url']).toBe('https://log.example.org/tlog');
  });

  it('defaults CONSOLE_LOG_URL to the first anchor log, and refuses a URL that is not http(s)', () => {
    expect(loadVerificationConfig({ ANCHOR_VERIFY_LOG_URL: 'http://127.0.0.1:3002' }).CONSOLE_LOG_URL).toBe(
      'http://127.0.0.1:3002',
    );
    for (const bad of ['ftp://log.example', 'javascript:alert(1)', 'not a url']) {
      expect(() => loadVerificationConfig({ CONSOLE_LOG_URL: bad }), bad).toThrow(ConfigError);
    }
  });
});
