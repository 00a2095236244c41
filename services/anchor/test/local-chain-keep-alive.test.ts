// P216: the test chain (ganache in the test process), and the test Esplora server, never close an idle connection
// under a request. The failure
// it guards: `ethereum.test.ts` "is deployed by `proto anchor deploy-contract`…" read ECONNRESET when the whole file
// ran on a loaded host (it passed alone). The deployment in beforeAll left a keep-alive connection in the process's
// fetch pool; the test before it, solc's compile, blocks the event loop (seconds on a loaded host). ganache's HTTP
// server here is Node's http (its uWS binary has no build for Node 24) and drops an idle connection 5 s (+1 s) after
// its last answer, on the wall clock; undici's pool expires it on a clock of 499 ms ticks, which does not advance
// while the loop is blocked, so the pool still held it. The next request went out on it before the timers ran;
// then the server's timeout fired, closed the socket with the request unread, and the kernel answered with a reset.
// The block here is a busy wait, what a slow compile is to the event loop; the request follows in the same turn,
// as vitest starts the next test.
import { runCli } from '@proto/cli';
import { loadAnchorArtifact } from '@proto/clients/contract';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type EsploraTestServer, startEsploraServer } from '../src/testing/esplora-server.ts';
import { DEPLOYER_KEY, type LocalChain, startLocalChain } from '../src/testing/ganache.ts';

let chain: LocalChain;
let esplora: EsploraTestServer;

beforeAll(async () => {
  chain = await startLocalChain();
  esplora = await startEsploraServer('regtest');
});

afterAll(async () => {
  await chain?.close();
  await esplora?.close();
});

function blockEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // nothing: the loop is blocked, as by a long synchronous compile
  }
}

it('requests right after the event loop was blocked past the servers’ keep-alive time are answered', async () => {
  let out = '';
  const code = await runCli(['anchor', 'deploy-contract', '--rpc', chain.url, '--key', DEPLOYER_KEY], {
    stdout: (t) => {
      out += t;
    },
    stderr: () => undefined,
    readStdin: async () => '',
  });
  expect(code).toBe(0);
  const { contract } = JSON.parse(out) as { contract: string };
  // The test Esplora server too (node:http in the test process, the Bitcoin tests’ explorer).
  const tip = async () => (await fetch(`${esplora.url}/blocks/tip/height`)).status;
  // A broadcast (POST, which undici never re-sends on a reset) of bytes that are no transaction: any HTTP answer is
  // what is asked for here, the reset is the failure.
  const broadcast = async () => (await fetch(`${esplora.url}/tx`, { method: 'POST', body: '00' })).status;
  expect(await tip()).toBe(200);
  // Each block is past both servers' keep-alive time (5 s + 1 s) and serves both: the requests after it go out in
  // the same turn, before the timers run (P547: a block of its own for each server, and a second round for the
  // chain, tested nothing more for twice the wait).
  blockEventLoop(6_500);
  const [getCode, tipAfter] = await Promise.allSettled([
    chain.rpc('eth_getCode', [contract, 'latest']),
    tip(),
  ]);
  expect(getCode).toEqual({ status: 'fulfilled', value: loadAnchorArtifact().deployedBytecode });
  expect(tipAfter).toEqual({ status: 'fulfilled', value: 200 });
  expect(await broadcast()).toBe(400);
  blockEventLoop(6_500);
  expect(await broadcast()).toBe(400);
}, 60_000);
