// Test support: an Esplora-compatible HTTP server on 127.0.0.1 that accepts broadcast transactions, parses them
// with @scure/btc-signer, keeps a UTXO set, and mines them at heights the test advances. D19 (Bitcoin adapter tests).
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import * as btc from '@scure/btc-signer';
import { BITCOIN_NETWORKS, type BitcoinNetworkName } from '../adapters/bitcoin.ts';

interface Utxo {
  readonly txid: string;
  readonly vout: number;
  readonly value: number;
  readonly address: string;
  spent: boolean;
}

interface StoredTx {
  readonly hex: string;
  readonly tx: btc.Transaction;
  height: number | null;
  /** sat/vB paid. */
  readonly feeRate: number;
  readonly fee: number;
  /** BIP 125: an input's sequence below 0xfffffffe lets a higher-fee spend of the same coins replace it. */
  readonly replaceable: boolean;
  /** The coins it spends, so a replacement can free them. */
  readonly spends: readonly Utxo[];
}

export interface EsploraTestServer {
  readonly url: string;
  /** Every POST /tx body, in arrival order (rebroadcasts included). */
  readonly broadcasts: string[];
  /** Transactions by txid (mempool and mined). */
  readonly transactions: ReadonlyMap<string, StoredTx>;
  /** Gives `address` a confirmed coin. */
  fund(address: string, sats: number): void;
  /**
   * Mines the mempool (only transactions paying at least `minFeeRate` sat/vB, see `setMinFeeRate`) into the next
   * block, then adds `blocks - 1` empty blocks.
   */
  mine(blocks: number): void;
  /** Miners take only transactions paying at least this many sat/vB (default 0): cheaper ones stay stuck. */
  setMinFeeRate(satPerVb: number): void;
  /**
   * A reorganisation: blocks from `height` on are replaced by a new branch of `newLength` empty blocks. The
   * transactions they held go back to the mempool, or vanish with `dropTransactions` (as a node that never saw them).
   */
  reorg(height: number, newLength: number, options?: { readonly dropTransactions?: boolean }): void;
  tipHeight(): number;
  /** The next POST /tx is refused with HTTP 400 and this bitcoind-style reason. */
  rejectNext(reason: string): void;
  close(): Promise<void>;
}

const branchHash = (height: number, branch: number) =>
  createHash('sha256').update(`block ${height} branch ${branch}`).digest('hex');
const BLOCK_TIME_0 = 1_750_000_000;

export async function startEsploraServer(
  network: BitcoinNetworkName = 'regtest',
): Promise<EsploraTestServer> {
  const net = BITCOIN_NETWORKS[network];
  const utxos: Utxo[] = [];
  const txs = new Map<string, StoredTx>();
  const broadcasts: string[] = [];
  let tip = 100;
  let reject: string | undefined;
  let minFeeRate = 0;
  let branch = 0;
  // Block hashes per height: a reorganisation replaces those from the fork point on, and only those.
  const hashes = new Map<number, string>();
  const blockHash = (height: number) => {
    let hash = hashes.get(height);
    if (hash === undefined) {
      hash = branchHash(height, branch);
      hashes.set(height, hash);
    }
    return hash;
  };
  const forget = (stored: StoredTx) => {
    txs.delete(stored.tx.id);
    for (const coin of stored.spends) coin.spent = false;
    for (let i = utxos.length - 1; i >= 0; i--) if (utxos[i]?.txid === stored.tx.id) utxos.splice(i, 1);
  };

  const accept = (hex: string): { status: number; body: string } => {
    let tx: btc.Transaction;
    try {
      tx = btc.Transaction.fromRaw(Buffer.from(hex, 'hex'), { allowUnknownOutputs: true });
    } catch (error) {
      return {
        status: 400,
        body: `sendrawtransaction RPC error: TX decode failed (${(error as Error).message})`,
      };
    }
    if (txs.has(tx.id)) return { status: 400, body: 'sendrawtransaction RPC error: txn-already-known' };
    const spends: Utxo[] = [];
    const conflicts = new Set<StoredTx>();
    for (let i = 0; i < tx.inputsLength; i++) {
      const input = tx.getInput(i);
      const txid = Buffer.from(input.txid as Uint8Array).toString('hex');
      const coin = utxos.find((u) => u.txid === txid && u.vout === input.index);
      const spender = coin?.spent
        ? [...txs.values()].find((t) => t.spends.includes(coin as Utxo))
        : undefined;
      if (!coin || (coin.spent && (spender === undefined || spender.height !== null)))
        return { status: 400, body: 'sendrawtransaction RPC error: bad-txns-inputs-missingorspent' };
      if (spender) conflicts.add(spender);
      spends.push(coin);
    }
    let inValue = 0;
    for (const coin of spends) inValue += coin.value;
    let outValue = 0;
    for (let i = 0; i < tx.outputsLength; i++) outValue += Number(tx.getOutput(i).amount);
    const fee = inValue - outValue;
    // BIP 125 rules 1, 3 and 4 (simplified: one relay fee of 1 sat/vB).
    for (const old of conflicts) {
      if (!old.replaceable)
        return { status: 400, body: 'sendrawtransaction RPC error: txn-mempool-conflict' };
      if (fee < old.fee + tx.vsize)
        return { status: 400, body: 'sendrawtransaction RPC error: insufficient fee, rejecting replacement' };
    }
    for (const old of conflicts) forget(old);
    for (const coin of spends) coin.spent = true;
    let replaceable = false;
    for (let i = 0; i < tx.inputsLength; i++)
      if ((tx.getInput(i).sequence ?? 0xffffffff) < 0xfffffffe) replaceable = true;
    for (let i = 0; i < tx.outputsLength; i++) {
      const out = tx.getOutput(i);
      const script = out.script as Uint8Array;
      if (script[0] === 0x6a) continue;
      const address = btc.Address(net).encode(btc.OutScript.decode(script));
      utxos.push({ txid: tx.id, vout: i, value: Number(out.amount), address, spent: false });
    }
    txs.set(tx.id, { hex, tx, height: null, fee, feeRate: fee / tx.vsize, replaceable, spends });
    return { status: 200, body: tx.id };
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] as string;
      const send = (status: number, body: string, type = 'text/plain') => {
        res.writeHead(status, { 'content-type': type });
        res.end(body);
      };
      const utxoPath = /^\/address\/([^/]+)\/utxo$/.exec(path);
      const txPath = /^\/tx\/([0-9a-f]{64})\/(status|hex)$/.exec(path);
      if (req.method === 'POST' && path === '/tx') {
        const hex = Buffer.concat(chunks).toString('utf8').trim();
        broadcasts.push(hex);
        if (reject !== undefined) {
          const reason = reject;
          reject = undefined;
          return send(400, `sendrawtransaction RPC error: {"code":-26,"message":"${reason}"}`);
        }
        const result = accept(hex);
        return send(result.status, result.body);
      }
      if (req.method === 'GET' && path === '/blocks/tip/height') return send(200, String(tip));
      if (req.method === 'GET' && utxoPath) {
        const list = utxos
          .filter((u) => u.address === utxoPath[1] && !u.spent)
          .map((u) => {
            const height = txs.get(u.txid)?.height ?? (txs.has(u.txid) ? null : 1);
            return {
              txid: u.txid,
              vout: u.vout,
              value: u.value,
              status: height === null ? { confirmed: false } : { confirmed: true, block_height: height },
            };
          });
        return send(200, JSON.stringify(list), 'application/json');
      }
      if (req.method === 'GET' && txPath) {
        const stored = txs.get(txPath[1] as string);
        if (!stored) return send(404, 'Transaction not found');
        if (txPath[2] === 'hex') return send(200, stored.hex);
        const status =
          stored.height === null
            ? { confirmed: false }
            : {
                confirmed: true,
                block_height: stored.height,
                block_hash: blockHash(stored.height),
                block_time: BLOCK_TIME_0 + stored.height * 600,
              };
        return send(200, JSON.stringify(status), 'application/json');
      }
      return send(404, 'not found');
    });
  });
  // No server-side keep-alive timeout (P216, as the test chain in ganache.ts): the client's pool, in this same
  // process, drops an idle connection on a clock that stops while the event loop is blocked; a server dropping it on
  // the wall clock meanwhile had a broadcast reset (ECONNRESET) after a long synchronous stretch.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  return {
    url: `http://127.0.0.1:${port}`,
    broadcasts,
    transactions: txs,
    fund(address, sats) {
      utxos.push({ txid: randomBytes(32).toString('hex'), vout: 0, value: sats, address, spent: false });
    },
    mine(blocks) {
      tip += 1;
      for (const stored of txs.values())
        if (stored.height === null && stored.feeRate >= minFeeRate) stored.height = tip;
      tip += Math.max(0, blocks - 1);
    },
    setMinFeeRate(satPerVb) {
      minFeeRate = satPerVb;
    },
    reorg(height, newLength, options = {}) {
      branch++;
      for (const h of [...hashes.keys()]) if (h >= height) hashes.delete(h);
      for (const stored of [...txs.values()]) {
        if (stored.height === null || stored.height < height) continue;
        if (options.dropTransactions) forget(stored);
        else stored.height = null;
      }
      tip = height - 1 + newLength;
    },
    tipHeight: () => tip,
    rejectNext(reason) {
      reject = reason;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
