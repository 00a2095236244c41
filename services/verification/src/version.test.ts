// The version the service reports (/health, the OpenAPI document) is its package.json version, read at start-up.
// Issue 13 item 5 (one source for the release version; it was a literal in four app.ts files).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from './test-support.ts';

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

describe('reported version', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp({ CRYPTO_BACKEND: 'noble' });
  });
  afterAll(async () => {
    await running.close();
  });

  it('is package.json version in /health and in the OpenAPI document', async () => {
    const health = (await (await fetch(`${running.url}/health`)).json()) as { version: string };
    expect(health.version).toBe(PACKAGE_VERSION);
    const docs = (await (await fetch(`${running.url}/docs/json`)).json()) as { info: { version: string } };
    expect(docs.info.version).toBe(PACKAGE_VERSION);
  });

  it('has no version literal left in any service app', () => {
    for (const service of ['verification', 'revocation', 'anchor', 'transparency-log']) {
      const source = readFileSync(new URL(`../../${service}/src/app.ts`, import.meta.url), 'utf8');
      expect(source, service).not.toMatch(/SERVICE_VERSION\s*=\s*['"]/);
      expect(source, service).toContain("from '../package.json' with { type: 'json' }");
    }
  });
});
