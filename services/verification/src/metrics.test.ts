// Revocation-source metrics of the verifier over GET /metrics, against the real revocation service on loopback and
// a source that does not answer: last successful fetch and state per jurisdiction (issue 16 item 3).

import { call, type RunningService, startService, tempDir } from '@proto/revocation/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from './test-support.ts';

const JURISDICTION = 'US'; // the builder writes RPRs for US
let revocation: RunningService;
let revocationDir: ReturnType<typeof tempDir>;
let healthy: RunningApp;
let broken: RunningApp;

beforeAll(async () => {
  revocationDir = tempDir('verification-metrics');
  revocation = await startService({
    dataDir: revocationDir.dir,
    env: { JURISDICTION, LOG_LEVEL: 'warn' },
    timer: false,
  });
  const key = (await call(revocation, 'GET', '/health', undefined, null)).json[
    'revocation_public_key_b64'
  ] as string;
  const sources = (url: string) =>
    JSON.stringify({ [JURISDICTION]: { url, keys: [key] }, FR: { url, keys: [key] } });
  const common = {
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    VERIFICATION_CACHE_MAX_ENTRIES: '0',
  };
  [healthy, broken] = await Promise.all([
    startApp({ ...common, REVOCATION_SOURCES: sources(revocation.listUrl) }),
    // Nothing listens on port 9.
    startApp({ ...common, REVOCATION_SOURCES: sources('http://127.0.0.1:9/revocations.json') }),
  ]);
});

afterAll(async () => {
  await Promise.all([healthy, broken].map((app) => app?.close()));
  await revocation?.close();
  revocationDir?.remove();
});

async function scrape(app: RunningApp): Promise<string> {
  return (await fetch(`${app.url}/metrics`)).text();
}

describe('revocation source metrics', () => {
  it('reports a source never asked as never_fetched, then ok with the time of its last good answer', async () => {
    let text = await scrape(healthy);
    expect(text).toMatch(/^proto_revocation_source_state\{jurisdiction="US",state="never_fetched"\} 1$/m);
    const before = Date.now() / 1000;
    const res = await postVerify(healthy.url, { signed_bundle: sampleBundle({}).signed_bundle });
    expect(res.status).toBe(200);
    text = await scrape(healthy);
    expect(text).toMatch(/^proto_revocation_source_state\{jurisdiction="US",state="ok"\} 1$/m);
    // Every configured source is consulted for every bundle, whatever its jurisdiction (P4).
    expect(text).not.toMatch(/^proto_revocation_source_state\{jurisdiction="FR",state="never_fetched"\} 1$/m);
    expect(text).toMatch(/^proto_revocation_source_state\{jurisdiction="FR",state="\w+"\} 1$/m);
    const line = text
      .split('\n')
      .find((l) => l.startsWith('proto_revocation_source_last_success_timestamp_seconds{jurisdiction="US"}'));
    expect(Number(line?.split(' ').at(-1))).toBeGreaterThanOrEqual(Math.floor(before));
  });

  it('reports a source that does not answer by its problem, with no last success', async () => {
    await postVerify(broken.url, { signed_bundle: sampleBundle({}).signed_bundle });
    const text = await scrape(broken);
    expect(text).toMatch(/^proto_revocation_source_state\{jurisdiction="US",state="unavailable"\} 1$/m);
    expect(text).not.toMatch(/^proto_revocation_source_last_success_timestamp_seconds\{jurisdiction="US"\}/m);
  });
});
