// The real anchor service on a real local chain behind a node:http front, as the EVM JSON-RPC hostile suites drive
// it (P177, P184, P196): the service logging at warn into lines a test reads, and what a front needs to forward a
// call or rewrite the `result` of the methods a test names. One set-up for both suites (P223).
import type { ServerResponse } from 'node:http';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { answerJson } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { getReceipt, testApp } from '../../../src/testing/app.ts';
import { evmEnv } from '../../../src/testing/evm-chain.ts';

export const CHAIN = 'ethereum';

/** A log line of the service at warn and above, parsed. */
export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly err?: unknown;
}

/** The node's true answer to each method named here, its `result` replaced by what the function gives. */
export type ResultRewrites = Readonly<Record<string, (honest: unknown) => unknown>>;

/** The JSON-RPC method of a request body (the transport sends one call per request). */
export function methodOf(body: Buffer): string {
  try {
    const call = JSON.parse(body.toString('utf8')) as { method?: unknown };
    return typeof call.method === 'string' ? call.method : '';
  } catch {
    return '';
  }
}

/** The chain's own answer to the call in `body`. */
export async function forwardCall(chainUrl: string, body: Buffer): Promise<{ status: number; text: string }> {
  const answer = await fetch(chainUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: answer.status, text: await answer.text() };
}

/**
 * Answers the call in `body` with the chain's own answer, its `result` rewritten when `rewrites` names the method;
 * a rewrite giving `undefined` leaves `result` out of the envelope (JSON.stringify drops it).
 */
export async function answerRewritten(
  res: ServerResponse,
  chainUrl: string,
  body: Buffer,
  rewrites: ResultRewrites,
): Promise<void> {
  const { status, text } = await forwardCall(chainUrl, body);
  const change = rewrites[methodOf(body)];
  if (change === undefined) return answerJson(res, status, text);
  const envelope = JSON.parse(text) as { result?: unknown };
  answerJson(res, status, { ...envelope, result: change(envelope.result) });
}

/** The anchor service on a fresh SQLite store named after `label`, writing to `contract` through `rpcUrl`. */
export async function startAnchorBehind(options: {
  readonly rpcUrl: string;
  readonly contract: string;
  readonly label: string;
  readonly upstreamTimeoutMs: number;
}): Promise<{ app: FastifyInstance; target: StoreTarget; logLines: LogLine[] }> {
  const logLines: LogLine[] = [];
  const target = await createStoreTarget('sqlite', options.label);
  const app = await testApp(
    {
      LOG_LEVEL: 'warn',
      ...evmEnv(options.rpcUrl, options.contract),
      ETH_CONFIRMATIONS: '1',
      BATCH_INTERVAL_MS: '0',
      ANCHOR_UPSTREAM_TIMEOUT_MS: String(options.upstreamTimeoutMs),
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
  return { app, target, logLines };
}

/** The lines that say a pass found the chain unreachable (a transient fault, the request kept queued). */
export const unreachableIn = (logLines: readonly LogLine[]): LogLine[] =>
  logLines.filter((l) => l.msg === 'anchor: chain unreachable, retrying on the next pass');

/** After a refused pass an honest node confirms the same request: nothing was lost or failed for good. */
export async function confirmsAfterwards(app: FastifyInstance, hash: string): Promise<void> {
  for (let pass = 0; pass < 3; pass++) {
    await app.anchorWorker.run(CHAIN, true);
    if ((await getReceipt(app, hash))['status'] === 'confirmed') break;
  }
  expect(await getReceipt(app, hash)).toMatchObject({ status: 'confirmed' });
}
