// Every `--timeout MS` of the `proto` command takes a whole number of milliseconds from 1 to 600000 and nothing
// else: 0 was an immediate timeout with a network request made anyway, and a value past 2^31 - 1 ms was turned
// into 1 ms by Node's timers (a "did not answer within 4294967296 ms" at once). A bad value is bad usage, exit 2,
// before anything is asked of the network. `anchor deploy-contract` takes it too, for each JSON-RPC request
// (viem's 30 s before). The real CLI is spawned with the pinned Node against a local server that records what
// it is asked. P176.
import { writeFileSync } from 'node:fs';
import { buildSignedBundle } from '@proto/core';
import { dripForever, type HostileFront, startHostileFront, tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as proto, writePendingEthereumReceipt } from './test-support.ts';

const work = tempDirSync('cli-timeout-option');
/** Every request it gets is recorded and answered with headers, then a byte every 200 ms for ever. */
let server: HostileFront;
let mark = 0;
/** What the server was asked since the last `mark = server.hits()`. */
const asked = (): string[] =>
  server.requests.slice(mark).map((request) => `${request.method} ${request.url}`);
/** How long each request was held open before the client gave up on it. */
const heldMs: number[] = [];
let url = '';

beforeAll(async () => {
  server = await startHostileFront((_request, response) => {
    const started = Date.now();
    response.on('close', () => heldMs.push(Date.now() - started));
    dripForever(response, { everyMs: 200 });
  });
  url = server.url;
});
afterAll(async () => {
  await server.close();
  work.remove();
});

const bundleFile = `${work.dir}/bundle.json`;
writeFileSync(bundleFile, JSON.stringify(buildSignedBundle({ tier: 'standard' }).signed_bundle));
const { receiptFile, bundleHash } = writePendingEthereumReceipt(work.dir);

/** Each command that reads a URL, asked of the recording server. */
const COMMANDS: Record<string, () => string[]> = {
  verify: () => ['verify', '--json', bundleFile, '--revocation-list', `${url}/list`, '--revocation-key', 'k'],
  'receipt verify': () => ['receipt', 'verify', receiptFile, '--bundle-hash', bundleHash, '--rpc', url],
  'log prove': () => ['log', 'prove', '--tiles', url, '--index', '0'],
  'anchor deploy-contract': () => ['anchor', 'deploy-contract', '--rpc', url, '--key', 'ab'.repeat(32)],
};

/** Every way a value can be wrong, for one command; the others share its parser and get the two that did harm. */
const BAD = ['0', '-1', '1.5', '1e3', '007', '600001', '4294967296', 'soon', ''];
const HARMFUL = ['0', '4294967296'];

async function expectUsageErrors(args: readonly string[], values: readonly string[]): Promise<void> {
  mark = server.hits();
  // One at a time: the machine running the tests may have few cores.
  for (const value of values) {
    const run = await proto([...args, '--timeout', value]);
    expect(run.code, `${JSON.stringify(value)}: ${run.stderr}`).toBe(2);
    expect(run.stderr, value).toMatch(/--timeout must be a whole number of milliseconds from 1 to 600000/);
    expect(run.stderr, value).not.toMatch(/\n\s+at /);
  }
  expect(asked()).toEqual([]);
}

describe('--timeout outside 1..600000 ms is bad usage: exit 2, nothing asked', { timeout: 240_000 }, () => {
  it('verify, every kind of bad value', async () => {
    await expectUsageErrors(COMMANDS['verify']!(), BAD);
  });
  for (const name of ['receipt verify', 'log prove', 'anchor deploy-contract']) {
    it(name, async () => {
      await expectUsageErrors(COMMANDS[name]!(), HARMFUL);
    });
  }
});

describe('anchor deploy-contract --timeout bounds each JSON-RPC request', { timeout: 60_000 }, () => {
  it('a node that never finishes its answer fails the deployment after --timeout, exit 3', async () => {
    mark = server.hits();
    heldMs.length = 0;
    const run = await proto([...COMMANDS['anchor deploy-contract']!(), '--timeout', '1500']);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/^proto anchor: the deployment failed: .*took too long/);
    expect(asked()).toHaveLength(1);
    // Given up after about 1.5 s of the client's clock, not viem's default 30 s (room left for a loaded machine,
    // where the server may see the request late).
    expect(heldMs[0]).toBeLessThan(10_000);
  });

  it('its help names the option', async () => {
    const run = await proto(['anchor', 'deploy-contract', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/--timeout <MS>\s+each JSON-RPC request/);
  });
});
