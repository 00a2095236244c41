// P581: ETH_RPC_URL in the form RPC providers document, `https://:<key>@host/…` (no user name, the key as password).
// viem turns only a URL with a user name into a Basic header and hands this one on as written; fetch refused it, so
// the service booted, answered /ready 503 for ever and never reached the node, with nothing at boot to say why.
// Now fetchBounded (under the service's JSON-RPC transport) sends the userinfo as Basic authorization to that node.
// The real anchor service listening on a port, asked over HTTP, in front of a node that answers only that credential.
import { answerJson, type HostileFront, startHostileFront } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CHAIN_ID } from '../../src/testing/ganache.ts';
import { methodOf, startAnchorBehind } from './testing/evm-front.ts';

const KEY = 'provider-key-5d2e-never-logged';
const BASIC = `Basic ${Buffer.from(`:${KEY}`, 'utf8').toString('base64')}`;

let node: HostileFront;
beforeAll(async () => {
  node = await startHostileFront((request, res) => {
    if (request.headers.authorization !== BASIC) return answerJson(res, 401, { error: 'unauthorized' });
    const call = JSON.parse(request.text()) as { id: number };
    if (methodOf(request.body) !== 'eth_chainId')
      return answerJson(res, 200, { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'no' } });
    return answerJson(res, 200, { jsonrpc: '2.0', id: call.id, result: `0x${TEST_CHAIN_ID.toString(16)}` });
  });
});
afterAll(async () => {
  await node.close();
});

describe('P581: ETH_RPC_URL https://:<key>@host reaches the node with the key as Basic authorization', () => {
  it('GET /ready is 200, the node saw the key only in the header, no log line or answer shows it', async () => {
    const rpcUrl = node.url.replace('://', `://:${KEY}@`);
    const started = await startAnchorBehind({
      rpcUrl,
      contract: `0x${'11'.repeat(20)}`,
      label: 'redteam3-rpc-provider-basic',
      upstreamTimeoutMs: 5000,
    });
    try {
      const address = await started.app.listen({ host: '127.0.0.1', port: 0 });
      const ready = await fetch(`${address}/ready`);
      const body = await ready.text();
      expect(ready.status, body).toBe(200);
      expect(node.requests.length).toBeGreaterThan(0);
      for (const request of node.requests) {
        expect(request.headers.authorization).toBe(BASIC);
        expect(request.url).not.toContain(KEY);
      }
      expect(`${JSON.stringify(started.logLines)}\n${body}`).not.toContain(KEY);
    } finally {
      await started.app.close();
      await started.target.cleanup();
    }
  });
});
