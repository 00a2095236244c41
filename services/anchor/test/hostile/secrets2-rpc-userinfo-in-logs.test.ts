// P541: an ETH_RPC_URL with userinfo. viem sends `user:password@` as a Basic Authorization header (so such a node is
// reached) and names the URL in its errors without the userinfo, but with the rest: a key in the path
// (`https://user:password@…/v3/<key>`) is then in no spelling the log's scrub knew (P496 scrubbed the variable's
// value as written), and every failed readiness check or pass wrote it to the log. The provider form `https://:<key>@`
// is not turned into a header by viem (no user name), so fetch refuses it and repeats it whole. The real anchor
// service in-process over HTTP against a node that is down, its log lines and its /health and /ready answers read.
import { afterEach, describe, expect, it } from 'vitest';
import { type LogLine, startAnchorBehind } from './testing/evm-front.ts';

const PASSWORD = 'basic-pw-3c1d-never-logged';
const API_KEY = 'path-key-77e0a1-never-logged';
const CONTRACT = `0x${'11'.repeat(20)}`;
// Port 9 (discard) on the loopback: nothing listens, so every call is refused.
const FORMS: Record<string, string> = {
  'user:password@ and a key in the path': `http://ops:${PASSWORD}@127.0.0.1:9/v3/${API_KEY}`,
  'the provider form :<key>@': `http://:${API_KEY}@127.0.0.1:9/`,
};

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  delete process.env['ETH_RPC_URL'];
  await stop?.();
  stop = undefined;
});

describe('P541: an ETH_RPC_URL with userinfo reaches no log line and no answer', () => {
  for (const [name, rpcUrl] of Object.entries(FORMS)) {
    it(name, async () => {
      // The service's configuration comes from its environment: the scrub knows the values it must not print there.
      process.env['ETH_RPC_URL'] = rpcUrl;
      const started = await startAnchorBehind({
        rpcUrl,
        contract: CONTRACT,
        label: 'secrets2-rpc-userinfo',
        upstreamTimeoutMs: 2000,
      });
      const { app } = started;
      const logLines: LogLine[] = started.logLines;
      stop = async () => {
        await app.close();
        await started.target.cleanup();
      };
      const ready = await app.inject({ method: 'GET', url: '/ready' });
      expect(ready.statusCode).toBe(503);
      const health = await app.inject({ method: 'GET', url: '/health' });
      expect(logLines.filter((l) => l.msg === 'readiness check failed').length).toBeGreaterThan(0);
      const text = [JSON.stringify(logLines), ready.body, health.body].join('\n');
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(API_KEY);
    });
  }
});
