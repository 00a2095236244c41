// The real anchor service on the test Esplora server behind a node:http front, as the Esplora hostile suites drive it
// (P177, P217): the front forwards each request to the explorer, and a suite answers a request itself or rewrites
// the explorer's answer; the service logs at warn into lines a test reads. One set-up for both suites (P253).
import type { ServerResponse } from 'node:http';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { type FrontRequest, type HostileFront, startHostileFront } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { bitcoinPrivateKey, bitcoinWallet } from '../../../src/adapters/bitcoin.ts';
import { testApp } from '../../../src/testing/app.ts';
import { type EsploraTestServer, startEsploraServer } from '../../../src/testing/esplora-server.ts';
import type { LogLine } from './evm-front.ts';

export const CHAIN = 'bitcoin';

export interface EsploraBehindFront {
  readonly esplora: EsploraTestServer;
  readonly front: HostileFront;
  readonly target: StoreTarget;
  readonly app: FastifyInstance;
  /** The service's lines at warn and above, parsed. */
  readonly logLines: LogLine[];
  close(): Promise<void>;
}

export async function startAnchorBehindEsplora(options: {
  /** Its SQLite store's name. */
  readonly label: string;
  /** Hex key of the regtest P2WPKH wallet, funded with `sats`. */
  readonly keyHex: string;
  readonly sats: number;
  /** Answers the request itself (then true), else it is forwarded to the explorer. */
  readonly answer?: (request: FrontRequest, res: ServerResponse) => boolean;
  /** The explorer's answer text as the front sends it on (default: as it is). */
  readonly rewrite?: (request: FrontRequest, status: number, text: string) => string;
}): Promise<EsploraBehindFront> {
  const esplora = await startEsploraServer('regtest');
  esplora.fund(bitcoinWallet(bitcoinPrivateKey(options.keyHex, 'regtest'), 'regtest').address, options.sats);
  const front = await startHostileFront(async (request, res) => {
    if (options.answer?.(request, res) === true) return;
    const answer = await fetch(`${esplora.url}${request.url}`, {
      method: request.method,
      ...(request.method === 'POST' ? { body: request.body, headers: { 'content-type': 'text/plain' } } : {}),
    });
    const text = await answer.text();
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
    res.end(options.rewrite === undefined ? text : options.rewrite(request, answer.status, text));
  });
  const target = await createStoreTarget('sqlite', options.label);
  const logLines: LogLine[] = [];
  const app = await testApp(
    {
      LOG_LEVEL: 'warn',
      BTC_ESPLORA_URL: front.url,
      BTC_PRIVATE_KEY: options.keyHex,
      BTC_NETWORK: 'regtest',
      BTC_CONFIRMATIONS: '1',
      BATCH_INTERVAL_MS: '0',
    },
    await target.open(),
    {
      logger: {
        stream: {
          write(line: string) {
            logLines.push(JSON.parse(line) as LogLine);
          },
        },
      },
    },
  );
  return {
    esplora,
    front,
    target,
    app,
    logLines,
    close: async () => {
      await app.close();
      await target.cleanup();
      await esplora.close();
      await front.close();
    },
  };
}
