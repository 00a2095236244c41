// Test support: a local EVM node (ganache, from npm) on 127.0.0.1 with funded accounts, and JSON-RPC helpers.
// Used by the EVM, replica and crash tests of SPEC.md "Anchoring formats" (contract chain) and D19.
import http from 'node:http';
import { createRequire } from 'node:module';

/** Funded accounts of the test chain (keys made for these tests only). */
export const DEPLOYER_KEY = `0x${'11'.repeat(32)}`;
export const ANCHOR_KEY = `0x${'22'.repeat(32)}`;
export const OTHER_KEY = `0x${'33'.repeat(32)}`;
export const TEST_CHAIN_ID = 1337;

interface GanacheServer {
  listen(port: number, host: string): Promise<void>;
  address(): { port: number };
  close(): Promise<void>;
}

export interface LocalChain {
  readonly url: string;
  rpc(method: string, params?: readonly unknown[]): Promise<unknown>;
  /** Mines `blocks` empty blocks. */
  mine(blocks: number): Promise<void>;
  blockNumber(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Listens on a free loopback port with no server-side keep-alive timeout (P216): an idle connection is closed by the
 * client (undici's pool, after its 4 s) or by close(), never by the server. On Node 24 ganache serves HTTP through
 * Node's http (its uWS binary has no build for it), which drops a connection idle 5 s (+1 s) on the wall clock, while
 * the pool of the test process it shares expires it on ticks that stop while the event loop is blocked (solc's
 * compile on a loaded host). After such a block a request went out on a connection the pool still held, the
 * server's timeout then closed it with the request unread, and the request read ECONNRESET. Two clocks deciding one
 * connection's end is the race; one side deciding it is none. The server is found among those created while
 * ganache listens by its port; with another HTTP layer (uWS) there is none, and nothing is changed.
 */
async function listenHoldingIdleConnections(server: GanacheServer): Promise<number> {
  const created: http.Server[] = [];
  const createServer = http.createServer;
  http.createServer = ((...args: Parameters<typeof http.createServer>) => {
    const made = createServer(...args);
    created.push(made);
    return made;
  }) as typeof http.createServer;
  try {
    await server.listen(0, '127.0.0.1');
  } finally {
    http.createServer = createServer;
  }
  const port = server.address().port;
  for (const made of created) {
    const address = made.address();
    if (typeof address === 'object' && address?.port === port) made.keepAliveTimeout = 0;
  }
  return port;
}

/**
 * Starts ganache (every transaction mined at once in its own block, until `miner_stop`) on a free loopback port.
 * `hardfork` 'berlin' gives a chain without EIP-1559 (legacy gas prices): ganache 7.9 mines both a type-2
 * transaction and its same-nonce replacement, so fee-bump tests use legacy transactions.
 */
export async function startLocalChain(options: { readonly hardfork?: string } = {}): Promise<LocalChain> {
  // ganache is CommonJS and large; load it only in the tests that need a chain.
  const ganache = createRequire(import.meta.url)('ganache') as {
    server(options: unknown): GanacheServer;
  };
  const balance = `0x${(10n ** 21n).toString(16)}`;
  const server = ganache.server({
    logging: { quiet: true },
    chain: { chainId: TEST_CHAIN_ID, hardfork: options.hardfork ?? 'shanghai' },
    miner: { instamine: 'eager', blockTime: 0 },
    wallet: { accounts: [DEPLOYER_KEY, ANCHOR_KEY, OTHER_KEY].map((secretKey) => ({ secretKey, balance })) },
  });
  const port = await listenHoldingIdleConnections(server);
  const url = `http://127.0.0.1:${port}`;
  let id = 0;
  const rpc = async (method: string, params: readonly unknown[] = []) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  return {
    url,
    rpc,
    mine: async (blocks) => {
      await rpc('evm_mine', [{ blocks }]);
    },
    blockNumber: async () => Number(await rpc('eth_blockNumber')),
    close: () => server.close(),
  };
}
