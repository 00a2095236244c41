// P215: the EVM gas bounds are settings with a bounded range. ETH_MAX_CALL_GAS (default 5,000,000, P196's constant)
// is the most gas a node's estimate of the anchor call may name; ETH_GAS_LIMIT, a fixed limit signed as given, may
// not pass it, and neither may pass 30,000,000. The real service booted as `pnpm start:anchor` runs it (a refused
// value stops the boot naming the variable, never printing the key), and the real service on a real local chain
// behind a node:http front that rewrites `eth_estimateGas` (the ceiling configured is the one applied).
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import {
  answerJson,
  bootEnv,
  bootMain,
  type FrontRequest,
  type HostileFront,
  startHostileFront,
} from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { encodeFunctionData, parseTransaction } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANCHOR_ABI } from '../src/adapters/ethereum.ts';
import { ETH_GAS_LIMIT_FLOOR } from '../src/config.ts';
import { getReceipt, hashOf, postAnchor, testApp } from '../src/testing/app.ts';
import { evmEnv, startChainWithContract } from '../src/testing/evm-chain.ts';
import { ANCHOR_KEY, type LocalChain } from '../src/testing/ganache.ts';

const CHAIN = 'ethereum';
/** A key for the boot cases only (never funded anywhere): the output must not show it. */
const BOOT_KEY = `0x${'5c'.repeat(4)}${'a7'.repeat(28)}`;
/** Nothing listens on port 9: a configured chain the booted service never reaches. */
const NOWHERE = 'http://127.0.0.1:9';
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/**
 * Boots the real service with an EVM chain and `env`: its exit code when it refused to start, or 'listening'. Killed
 * (outcome null) after `limitMs`.
 */
async function boot(
  env: Record<string, string>,
  limitMs = BOOT_LIMIT_MS,
): Promise<{ outcome: number | null | 'listening'; output: string }> {
  const { code, output, stopped } = await bootMain(
    MAIN,
    {
      ...bootEnv('anchor-gas-settings-'),
      OPERATOR_TOKEN: 'gas-settings-operator-token',
      ETH_RPC_URL: NOWHERE,
      ETH_CHAIN_ID: '31337',
      ETH_CONTRACT: `0x${'11'.repeat(20)}`,
      ETH_PRIVATE_KEY: BOOT_KEY,
      ...env,
    },
    // Listening means every setting was accepted: stop it there.
    { killAfterMs: limitMs, stopWhen: (output) => /"address":"http:\/\/127\.0\.0\.1:\d+"/.test(output) },
  );
  return { outcome: stopped ? 'listening' : code, output };
}

// How long one boot may take before it counts as hung. A fixed 25 s failed the cases on a loaded machine (each boot
// loads the whole service in a fresh process, at the shared gate's low priority), so the limit follows how long
// this machine takes now: the boot with the defaults, timed as the file is collected (120 s at most), ten times
// over, never under 25 s. That boot is also the first "starts" case.
const BOOT_LIMIT_FLOOR_MS = 25_000;
const bootStarted = Date.now();
const withDefaults = await boot({}, 120_000);
const BOOT_LIMIT_MS = Math.max(BOOT_LIMIT_FLOOR_MS, 10 * (Date.now() - bootStarted));
/** A case's own limit: its boot's, and the time to judge what it printed. */
const CASE_LIMIT_MS = BOOT_LIMIT_MS + 5_000;

describe('P215: the gas settings are bounded at boot', () => {
  it.each([
    ['ETH_GAS_LIMIT', { ETH_GAS_LIMIT: '1000000000000' }, /ETH_GAS_LIMIT.*30000000/],
    ['ETH_GAS_LIMIT', { ETH_GAS_LIMIT: '30000001' }, /ETH_GAS_LIMIT.*30000000/],
    // P250: a plain transfer's 21,000 (the old floor) cannot run the anchor call: every write would fail at the chain.
    [
      'ETH_GAS_LIMIT below the anchor call',
      { ETH_GAS_LIMIT: '21000' },
      /ETH_GAS_LIMIT \(21000\) is below 24000, the least gas the anchor call runs with/,
    ],
    [
      'ETH_GAS_LIMIT below the anchor call',
      { ETH_GAS_LIMIT: '23999' },
      /ETH_GAS_LIMIT \(23999\) is below 24000, the least gas the anchor call runs with/,
    ],
    ['ETH_GAS_LIMIT', { ETH_GAS_LIMIT: '0' }, /ETH_GAS_LIMIT \(0\) is below 24000/],
    ['ETH_MAX_CALL_GAS', { ETH_MAX_CALL_GAS: '30000001' }, /ETH_MAX_CALL_GAS.*30000000/],
    ['ETH_MAX_CALL_GAS', { ETH_MAX_CALL_GAS: '99999' }, /ETH_MAX_CALL_GAS.*100000/],
    ['ETH_MAX_CALL_GAS', { ETH_MAX_CALL_GAS: 'plenty' }, /ETH_MAX_CALL_GAS/],
    [
      'ETH_GAS_LIMIT above ETH_MAX_CALL_GAS',
      { ETH_GAS_LIMIT: '6000000' },
      /ETH_GAS_LIMIT \(6000000\) must not exceed ETH_MAX_CALL_GAS \(5000000\)/,
    ],
    [
      'ETH_GAS_LIMIT above ETH_MAX_CALL_GAS',
      { ETH_GAS_LIMIT: '2000000', ETH_MAX_CALL_GAS: '1000000' },
      /ETH_GAS_LIMIT \(2000000\) must not exceed ETH_MAX_CALL_GAS \(1000000\)/,
    ],
  ])(
    'refuses %s out of range, naming it and never the key (%o)',
    async (_what, env, message) => {
      const { outcome, output } = await boot(env);
      expect(outcome).toBe(1);
      expect(output).toMatch(message);
      expect(output).not.toMatch(/at .*\.ts:\d+/); // a message, not a stack
      for (const piece of [BOOT_KEY, BOOT_KEY.slice(2, 18), BOOT_KEY.slice(-16)])
        expect(output).not.toContain(piece);
    },
    CASE_LIMIT_MS,
  );

  it('starts with the defaults', () => {
    expect(withDefaults.outcome, withDefaults.output).toBe('listening');
  });

  it.each([
    [{ ETH_GAS_LIMIT: '5000000' }],
    [{ ETH_MAX_CALL_GAS: '30000000', ETH_GAS_LIMIT: '30000000' }],
    [{ ETH_MAX_CALL_GAS: '100000', ETH_GAS_LIMIT: '24000' }],
  ])(
    'starts with the values in range (%o)',
    async (env) => {
      const { outcome, output } = await boot(env);
      expect(outcome, output).toBe('listening');
    },
    CASE_LIMIT_MS,
  );
});

describe('P215: the ceiling applied to a node’s gas estimate is ETH_MAX_CALL_GAS', () => {
  let chain: LocalChain;
  let front: HostileFront;
  let target: StoreTarget;
  let contract: string;
  /** The gas the front answers to eth_estimateGas; undefined: the node's own estimate. */
  let estimate: bigint | undefined;
  const apps: FastifyInstance[] = [];
  const warnings: string[] = [];

  const methodOf = (request: FrontRequest): string =>
    (JSON.parse(request.text()) as { method?: string }).method ?? '';

  async function forward(request: FrontRequest, res: ServerResponse): Promise<void> {
    const answer = await fetch(chain.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: request.body,
    });
    const text = await answer.text();
    if (methodOf(request) !== 'eth_estimateGas' || estimate === undefined)
      return answerJson(res, answer.status, text);
    const envelope = JSON.parse(text) as Record<string, unknown>;
    answerJson(res, answer.status, { ...envelope, result: `0x${estimate.toString(16)}` });
  }

  const sentFrom = (from: number) =>
    front.requests
      .slice(from)
      .filter((r) => methodOf(r) === 'eth_sendRawTransaction')
      .map((r) => parseTransaction((JSON.parse(r.text()) as { params: [`0x${string}`] }).params[0]));

  async function serviceWith(env: Record<string, string>): Promise<FastifyInstance> {
    const app = await testApp(
      {
        LOG_LEVEL: 'warn',
        ...evmEnv(front.url, contract),
        ETH_CONFIRMATIONS: '1',
        BATCH_INTERVAL_MS: '0',
        ANCHOR_UPSTREAM_TIMEOUT_MS: '5000',
        ...env,
      },
      await target.open(target.fresh(`gas-${apps.length}`)),
      {
        logger: {
          stream: {
            write(line: string) {
              warnings.push(line);
            },
          },
        },
      },
    );
    apps.push(app);
    return app;
  }

  beforeAll(async () => {
    ({ chain, contract } = await startChainWithContract());
    front = await startHostileFront(forward);
    target = await createStoreTarget('sqlite', 'anchor-gas-settings');
  }, 120_000);

  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
    await target?.cleanup();
    await front?.close();
    await chain?.close();
  });

  it('an estimate of 2,000,000 under ETH_MAX_CALL_GAS=1000000: nothing signed, the warning names the setting', async () => {
    const app = await serviceWith({ ETH_MAX_CALL_GAS: '1000000' });
    const h = hashOf('gas settings: below the default, above the configured ceiling');
    const from = front.requests.length;
    warnings.length = 0;
    estimate = 2_000_000n;
    try {
      expect((await postAnchor(app, h, CHAIN)).statusCode).toBe(202);
      for (let pass = 0; pass < 4; pass++) await app.anchorWorker.run(CHAIN, true);
    } finally {
      estimate = undefined;
    }
    expect(sentFrom(from)).toEqual([]);
    expect(warnings.join('\n')).toContain('above the 1000000 an anchor call can need (ETH_MAX_CALL_GAS)');
    expect((await getReceipt(app, h))['status']).toBe('pending');
    // The node's own estimate (tens of thousands) is signed as before, and the request is confirmed.
    for (let pass = 0; pass < 3; pass++) await app.anchorWorker.run(CHAIN, true);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'confirmed' });
  }, 60_000);

  it('an estimate of 6,000,000 under ETH_MAX_CALL_GAS=8000000 is signed (+25 %) and confirmed', async () => {
    const app = await serviceWith({ ETH_MAX_CALL_GAS: '8000000' });
    const h = hashOf('gas settings: above the default, below the configured ceiling');
    const from = front.requests.length;
    estimate = 6_000_000n;
    try {
      expect((await postAnchor(app, h, CHAIN)).statusCode).toBe(202);
      await app.anchorWorker.run(CHAIN, true);
    } finally {
      estimate = undefined;
    }
    const sent = sentFrom(from);
    expect(sent.map((tx) => tx.gas)).toEqual([7_500_000n]);
    for (let pass = 0; pass < 3; pass++) await app.anchorWorker.run(CHAIN, true);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'confirmed' });
  }, 60_000);
  it('P250: the anchor call needs more than 21,000 gas, and ETH_GAS_LIMIT at its floor is enough', async () => {
    // The call's cost on this chain for the dearest argument (every byte non-zero: 16 gas each, not 4).
    const data = encodeFunctionData({
      abi: ANCHOR_ABI,
      functionName: 'anchor',
      args: [`0x${'ff'.repeat(32)}`],
    });
    const from = privateKeyToAccount(ANCHOR_KEY as `0x${string}`).address;
    const needed = BigInt((await chain.rpc('eth_estimateGas', [{ from, to: contract, data }])) as string);
    expect(needed).toBeGreaterThan(21_000n);
    expect(needed).toBeLessThanOrEqual(BigInt(ETH_GAS_LIMIT_FLOOR));
    // The real service with the lowest ETH_GAS_LIMIT the boot takes signs it as given, and the write is confirmed.
    const app = await serviceWith({ ETH_GAS_LIMIT: String(ETH_GAS_LIMIT_FLOOR) });
    const h = hashOf('gas settings: ETH_GAS_LIMIT at its floor');
    const sentBefore = front.requests.length;
    expect((await postAnchor(app, h, CHAIN)).statusCode).toBe(202);
    await app.anchorWorker.run(CHAIN, true);
    expect(sentFrom(sentBefore).map((tx) => tx.gas)).toEqual([BigInt(ETH_GAS_LIMIT_FLOOR)]);
    for (let pass = 0; pass < 3; pass++) await app.anchorWorker.run(CHAIN, true);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'confirmed' });
  }, 60_000);
});
