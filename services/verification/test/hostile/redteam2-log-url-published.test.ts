// The log URLs the verification service is given are published: /console/config.json (`log_url`, read by anyone who
// opens the console) and the capabilities document (`log_witnesses[].log_url`). A URL written with `user:password@`
// or a `?token=` (an operator putting a log behind basic auth or a token) was served to every anonymous caller as
// written, and fetch refuses a URL with credentials anyway, so no look-up ever reached that log. Brief redteam2; P526.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';

const SECRET = 'hunter2-s3cret';

async function bootError(env: Record<string, string>): Promise<string> {
  let app: RunningApp | undefined;
  try {
    app = await startApp(env);
  } catch (error) {
    return String(error);
  }
  // Booted: show what an anonymous caller reads, which is the failure this test records.
  const page = await fetch(`${app.url}/console/config.json`);
  const text = await page.text();
  await app.close();
  return `booted; GET /console/config.json answered ${page.status} ${text}`;
}

describe('P526: a log URL carrying a credential refuses to boot, never published', () => {
  const cases: [string, Record<string, string>, string][] = [
    [
      'CONSOLE_LOG_URL with userinfo',
      { CONSOLE_LOG_URL: `https://ops:${SECRET}@log.example.org` },
      'CONSOLE_LOG_URL',
    ],
    [
      'CONSOLE_LOG_URL with a query',
      { CONSOLE_LOG_URL: `https://log.example.org/v1?token=${SECRET}` },
      'CONSOLE_LOG_URL',
    ],
    [
      'ANCHOR_VERIFY_LOG_URL with userinfo (the console default)',
      { ANCHOR_VERIFY_LOG_URL: `https://ops:${SECRET}@log.example.org/v1` },
      'ANCHOR_VERIFY_LOG_URL',
    ],
    [
      'ANCHOR_VERIFY_LOG_URL with userinfo and no slashes after the scheme',
      { ANCHOR_VERIFY_LOG_URL: `https:ops:${SECRET}@log.example.org` },
      'ANCHOR_VERIFY_LOG_URL',
    ],
    [
      'ANCHOR_VERIFY_LOG_URL JSON entry with a fragment',
      { ANCHOR_VERIFY_LOG_URL: JSON.stringify([{ url: `https://log.example.org#${SECRET}` }]) },
      'ANCHOR_VERIFY_LOG_URL',
    ],
  ];
  for (const [name, env, variable] of cases) {
    it(`${name}: boot refused naming ${variable}, the value not repeated`, async () => {
      const error = await bootError(env);
      expect(error).toMatch(/ConfigError/);
      expect(error).toContain(variable);
      expect(error).not.toContain(SECRET);
    });
  }
});

describe('P526 held: a plain log base URL still boots and is shown to the page', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ ANCHOR_VERIFY_LOG_URL: 'https://log.example.org/v1/' });
  });
  afterAll(async () => {
    await app?.close();
  });
  it('/console/config.json names the log, and the page may connect to its origin', async () => {
    const page = await fetch(`${app.url}/console/config.json`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain(
      "connect-src 'self' https://log.example.org",
    );
    expect(await page.json()).toMatchObject({ log_url: 'https://log.example.org/v1' });
  });
});

describe('P526: a log URL that does not parse is refused without repeating it', () => {
  it('a password holding "/" (the URL reads as host "ops", port "hunter2…")', async () => {
    const error = await bootError({ CONSOLE_LOG_URL: `https://ops:${SECRET}/x@log.example.org` });
    expect(error).toMatch(/ConfigError: .*CONSOLE_LOG_URL/);
    expect(error).not.toContain(SECRET);
  });
});
