// P496: an ETH_RPC_URL with its API key in the path (Infura, Alchemy: `https://…/v3/<key>`) reached the log. A
// failed readiness check logs its error, and the RPC client's error repeats the whole URL it called, so every
// anonymous GET /ready against an unreachable node wrote the key to the log. The real anchor service in-process over
// HTTP, its log lines collected as they are written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LogLine, startAnchorBehind } from './testing/evm-front.ts';

const API_KEY = '5f1e0c2d9a8b4c7d-never-logged';
// Port 9 (discard) on the loopback: nothing listens, so every call is refused.
const RPC_URL = `http://127.0.0.1:9/v3/${API_KEY}`;
const CONTRACT = `0x${'11'.repeat(20)}`;

let stop: (() => Promise<void>) | undefined;
let ready: () => Promise<number>;
let logLines: LogLine[];

beforeAll(async () => {
  // The service's configuration comes from its environment: the scrub knows the values it must not print from there.
  process.env['ETH_RPC_URL'] = RPC_URL;
  const started = await startAnchorBehind({
    rpcUrl: RPC_URL,
    contract: CONTRACT,
    label: 'rpc-url-in-logs',
    upstreamTimeoutMs: 2000,
  });
  logLines = started.logLines;
  ready = async () => (await started.app.inject({ method: 'GET', url: '/ready' })).statusCode;
  stop = async () => {
    await started.app.close();
    await started.target.cleanup();
  };
});

afterAll(async () => {
  delete process.env['ETH_RPC_URL'];
  await stop?.();
});

describe('P496: an RPC URL with an API key in its path never reaches the log', () => {
  it('a failed readiness check logs why, with the key scrubbed from the error, its cause and stack', async () => {
    expect(await ready()).toBe(503);
    const failed = logLines.filter((l) => l.msg === 'readiness check failed');
    expect(failed.length).toBeGreaterThan(0);
    const text = JSON.stringify(logLines);
    expect(text).not.toContain(API_KEY);
    expect(text).toContain('[redacted]');
  });
});
