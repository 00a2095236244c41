// Test support: a stand-in transparency log on 127.0.0.1 with D18's API (add, proof, root, signed checkpoint, consistency)
// over an RFC 9162 tree of the 32 digest bytes, deduplicating appends. Used until services/transparency-log runs in-process.
import { createServer, type Server } from 'node:http';
import {
  formatVerifierKey,
  fromHex,
  type NoteSigner,
  noteVerifierKey,
  rfc9162ConsistencyProof,
  rfc9162InclusionProof,
  rfc9162LeafHash,
  rfc9162Root,
  selectCryptoBackend,
  signLogCheckpoint,
  toHex,
} from '@proto/core';

const ORIGIN = 'log.test.invalid/anchor';

export interface LogTestServer {
  readonly url: string;
  /** POST /add calls received (duplicates included). */
  readonly appends: string[];
  /** The C2SP verifier key of the checkpoints it signs (Ed25519). */
  readonly verifierKey: string;
  size(): number;
  close(): Promise<void>;
}

export async function startLogServer(options: { readonly token?: string } = {}): Promise<LogTestServer> {
  const leaves: Uint8Array[] = [];
  const indexByHash = new Map<string, number>();
  const appends: string[] = [];
  const pair = selectCryptoBackend().generateKeyPair('ed25519');
  const signer: NoteSigner = {
    name: ORIGIN,
    alg: 'ed25519',
    secretKey: pair.secretKey,
    publicKey: pair.publicKey,
  };
  const key = noteVerifierKey(ORIGIN, 'ed25519', pair.publicKey);
  if (!key.ok) throw new Error(key.error.message);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'POST' && url.pathname === '/add') {
        if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}`) {
          return send(401, { error: { code: 'UNAUTHORIZED' } });
        }
        const { bundle_hash: hash } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          bundle_hash: string;
        };
        appends.push(hash);
        const digest = /^sha256:[0-9a-f]{64}$/.test(hash) ? fromHex(hash.slice(7)) : undefined;
        if (!digest) return send(400, { error: { code: 'PROTO-E001' } });
        let index = indexByHash.get(hash);
        if (index === undefined) {
          index = leaves.length;
          leaves.push(rfc9162LeafHash(digest));
          indexByHash.set(hash, index);
        }
        return send(200, {
          log_index: index,
          timestamp: new Date().toISOString(),
          leaf_hash: toHex(leaves[index]!),
        });
      }
      const proof = /^\/proof\/(\d+)$/.exec(url.pathname);
      if (req.method === 'GET' && proof) {
        const index = Number(proof[1]);
        const size = Number(url.searchParams.get('tree_size') ?? leaves.length);
        if (index >= size || size > leaves.length) return send(404, { error: { code: 'NOT_FOUND' } });
        const tree = leaves.slice(0, size);
        return send(200, {
          log_index: index,
          tree_size: size,
          leaf_hash: toHex(tree[index]!),
          proof: rfc9162InclusionProof(tree, index).map(toHex),
          root: toHex(rfc9162Root(tree)),
        });
      }
      if (req.method === 'GET' && url.pathname === '/root/signed') {
        const root = rfc9162Root(leaves);
        const note = signLogCheckpoint({ origin: ORIGIN, size: leaves.length, root }, [signer]);
        if (!note.ok) return send(500, { error: note.error });
        return send(200, { root: toHex(root), tree_size: leaves.length, checkpoint: note.value });
      }
      if (req.method === 'GET' && url.pathname === '/consistency') {
        const first = Number(url.searchParams.get('first'));
        const second = Number(url.searchParams.get('second'));
        if (!(first <= second && second <= leaves.length)) return send(404, { error: { code: 'NOT_FOUND' } });
        return send(200, { first, second, proof: rfc9162ConsistencyProof(leaves, first, second).map(toHex) });
      }
      if (req.method === 'GET' && url.pathname === '/root') {
        return send(200, {
          root: toHex(rfc9162Root(leaves)),
          tree_size: leaves.length,
          timestamp: new Date().toISOString(),
        });
      }
      return send(404, { error: { code: 'NOT_FOUND' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    appends,
    verifierKey: formatVerifierKey(key.value),
    size: () => leaves.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
