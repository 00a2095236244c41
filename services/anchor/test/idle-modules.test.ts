// What the anchor service loads before its first request (P80, P135): on the embedded defaults (no chain
// configured) it never runs the EVM or Bitcoin adapters, so it does not load viem or @scure/btc-signer; a
// configured chain loads its own client and not the other's. The real service, as `pnpm start` starts it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOADED_MODULES_RECORDER } from '@proto/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { startServiceChild } from '../src/testing/child.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Starts the service, waits for it to listen, stops it with SIGTERM; the URLs of the modules it loaded. */
async function modulesLoadedAtIdle(env: Record<string, string>): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'anchor-idle-modules-'));
  dirs.push(dir);
  const list = join(dir, 'modules.txt');
  const service = await startServiceChild(
    {
      DATA_DIR: join(dir, 'data'),
      OPERATOR_TOKEN: 'idle-modules-operator',
      LOADED_MODULES_FILE: list,
      ...env,
    },
    ['--import', LOADED_MODULES_RECORDER],
  );
  await service.stop();
  expect((await service.exited).code).toBe(0);
  return readFileSync(list, 'utf8').split('\n');
}

const fromPackage = (modules: readonly string[], name: string) =>
  modules.filter((url) => url.includes(`/node_modules/${name}/`));

/** Nothing listens on port 9 (discard): an adapter is built, never reached, while the test runs. */
const NOWHERE = 'http://127.0.0.1:9';

describe('the idle anchor service', () => {
  it('with no chain configured has loaded neither the EVM nor the Bitcoin client', async () => {
    const modules = await modulesLoadedAtIdle({});
    // The recorder saw the service's own modules (it would see nothing if its hook never ran).
    expect(modules.some((url) => url.endsWith('/services/anchor/src/app.ts'))).toBe(true);
    expect(fromPackage(modules, 'fastify').length).toBeGreaterThan(0);
    expect(fromPackage(modules, 'viem')).toEqual([]);
    expect(fromPackage(modules, '@scure/btc-signer')).toEqual([]);
  });

  it('loads viem, and only viem, once an EVM chain is configured', async () => {
    const modules = await modulesLoadedAtIdle({
      ETH_RPC_URL: NOWHERE,
      ETH_CHAIN_ID: '31337',
      ETH_CONTRACT: `0x${'11'.repeat(20)}`,
      ETH_PRIVATE_KEY: `0x${'22'.repeat(32)}`,
    });
    expect(fromPackage(modules, 'viem').length).toBeGreaterThan(0);
    expect(fromPackage(modules, '@scure/btc-signer')).toEqual([]);
  });

  it('loads @scure/btc-signer, and not viem, once Bitcoin is configured', async () => {
    const modules = await modulesLoadedAtIdle({
      BTC_ESPLORA_URL: NOWHERE,
      BTC_PRIVATE_KEY: '33'.repeat(32),
      BTC_NETWORK: 'regtest',
    });
    expect(fromPackage(modules, '@scure/btc-signer').length).toBeGreaterThan(0);
    expect(fromPackage(modules, 'viem')).toEqual([]);
  });
});
