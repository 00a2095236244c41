// POST /anchor forwards to the anchor service (ANCHOR_SERVICE_URL): that upstream, seen as faulty or hostile
// (P156). The real verification service over HTTP; the "anchor service" is a local node:http server that answers
// well, or with a huge body, a lying Content-Length or a redirect to another host. The caller gets a 502 at once,
// the body is never buffered past the cap, and the other host never sees the caller's token.

import {
  answerJson,
  dripForever,
  type FrontHandler,
  type HostileFront,
  lieAboutLength,
  redirectTo,
  startHostileFront,
  writeHugeAnswer,
} from '@proto/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';

type Mode = 'honest' | 'huge' | 'length-lie' | 'drip' | 'redirect';

const HUGE_PADDING = 32 * 1024 * 1024;
const ACCEPTED = JSON.stringify({ accepted: true, status: 'pending' });
let mode: Mode = 'honest';
let upstream: HostileFront;
/** Where a redirect leads: a host the caller's token must never reach. */
let elsewhere: HostileFront;
let cutShort = 0;
let verifier: RunningApp;

/** The anchor service behind POST /anchor, answering as `mode` says. */
const anchorService: FrontHandler = async (_request, res) => {
  switch (mode) {
    case 'honest':
      return answerJson(res, 202, ACCEPTED);
    case 'huge':
      res.writeHead(202, { 'content-type': 'application/json' });
      return await writeHugeAnswer(res, HUGE_PADDING, ACCEPTED, () => {
        cutShort += 1;
      });
    case 'length-lie':
      return lieAboutLength(res, { status: 202, first: '{"accepted":' });
    case 'drip':
      return dripForever(res, { status: 202, first: '{"accepted":' });
    case 'redirect':
      return redirectTo(res, `${elsewhere.url}/anchor`);
  }
};

beforeAll(async () => {
  upstream = await startHostileFront(anchorService);
  elsewhere = await startHostileFront((_request, res) => answerJson(res, 202, ACCEPTED));
  verifier = await startApp({ ANCHOR_SERVICE_URL: upstream.url, VERIFY_RATE_LIMIT_PER_MINUTE: '0' });
});

afterAll(async () => {
  await verifier?.close();
  await Promise.all([upstream?.close(), elsewhere?.close()]);
});

beforeEach(() => {
  mode = 'honest';
});

async function postAnchor(): Promise<{ status: number; json: Record<string, unknown>; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${verifier.url}/anchor`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer caller-token' },
    body: JSON.stringify({ bundle_hash: `sha256:${'ab'.repeat(32)}` }),
  });
  return {
    status: res.status,
    json: (await res.json()) as Record<string, unknown>,
    ms: performance.now() - started,
  };
}

describe('P156: a hostile anchor service behind POST /anchor', () => {
  it('an honest anchor service: its 202 is passed through (the fixture is real)', async () => {
    expect(await postAnchor()).toMatchObject({ status: 202, json: { accepted: true } });
  });

  it('a 32 MiB answer is cut at the cap: 502, not buffered and passed on', async () => {
    mode = 'huge';
    const before = cutShort;
    const { status, json } = await postAnchor();
    expect(status).toBe(502);
    expect(json).toMatchObject({ error: { code: 'BAD_GATEWAY', retryable: true } });
    expect(JSON.stringify(json)).toMatch(/larger than 262144 bytes/);
    await expect.poll(() => cutShort - before, { timeout: 5000 }).toBeGreaterThan(0);
  });

  it('a Content-Length of 500 MB: 502 at once, not a 504 after the 15 s forward timeout', async () => {
    mode = 'length-lie';
    const { status, ms } = await postAnchor();
    expect(status).toBe(502);
    expect(ms).toBeLessThan(5000);
  });

  it('headers, then a byte every 100 ms for ever: 504 GATEWAY_TIMEOUT after the forward timeout, not a 500', async () => {
    mode = 'drip';
    const { status, json } = await postAnchor();
    expect(status).toBe(504);
    expect(json).toMatchObject({ error: { code: 'GATEWAY_TIMEOUT', retryable: true } });
  }, 30_000);

  it('a redirect to another host is not followed: 502, that host never sees the request or its token', async () => {
    mode = 'redirect';
    const before = elsewhere.hits();
    const { status, json } = await postAnchor();
    expect(status).toBe(502);
    expect(JSON.stringify(json)).toMatch(/redirect/);
    expect(elsewhere.hits() - before).toBe(0);
  });
});

describe('P168: ANCHOR_FORWARD_TIMEOUT_MS sets the forward timeout', () => {
  let quick: RunningApp;

  beforeAll(async () => {
    quick = await startApp({
      ANCHOR_SERVICE_URL: upstream.url,
      ANCHOR_FORWARD_TIMEOUT_MS: '1500',
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    });
  });

  afterAll(async () => {
    await quick?.close();
  });

  it('a dripping anchor service gets 504 after the configured 1.5 s, not the default 15 s', async () => {
    mode = 'drip';
    const started = performance.now();
    const res = await fetch(`${quick.url}/anchor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer caller-token' },
      body: JSON.stringify({ bundle_hash: `sha256:${'cd'.repeat(32)}` }),
    });
    const ms = performance.now() - started;
    expect(res.status).toBe(504);
    expect(ms).toBeGreaterThanOrEqual(1400);
    expect(ms).toBeLessThan(6000);
  }, 30_000);
});
