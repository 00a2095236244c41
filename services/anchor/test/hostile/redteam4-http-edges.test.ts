// redteam4 (P585, P586): anyone on the network, against the real anchor service (and a real log) over raw TCP. (1) A
// Host, X-Forwarded-*, Forwarded or absolute-form target naming the attacker's host must land in no answer (a
// receipt, pending or confirmed, the docs' Location) nor in what a later plain reader gets. (2) Framings a front and
// the service could read differently must be 400 with the connection closed, and no anchor request queued by any.
import type { Store } from '@proto/store';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import {
  documentedGetPaths,
  framingFaults,
  hostLeaks,
  listenOnPort0,
  postWithAttackerOrigin,
} from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashOf, OPERATOR, testApp } from '../../src/testing/app.ts';
import { type LogTestServer, startLogServer } from '../../src/testing/log-server.ts';

const LOG_TOKEN = 'log-append-token-redteam4-edges-01';
let log: LogTestServer;
let target: StoreTarget;
let store: Store;
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  log = await startLogServer({ token: LOG_TOKEN });
  target = await createStoreTarget('sqlite', 'anchor-redteam4-edges');
  store = await target.open();
  app = await testApp({ TL_URL: log.url, TL_TOKEN: LOG_TOKEN }, store);
  url = (await listenOnPort0(app)).url;
});
afterAll(async () => {
  await app?.close();
  await target?.cleanup();
  await log?.close();
});

const ANCHOR_HEADERS = [`Authorization: Bearer ${OPERATOR}`, 'Content-Type: application/json'];
const anchorBody = (tag: string) => JSON.stringify({ bundle_hash: hashOf(tag), chain: 'transparency-log' });

describe('redteam4: Host and framing edges on the anchor service', () => {
  it("never names an attacker's host in an answer or a receipt (P586)", async () => {
    const posted = await postWithAttackerOrigin(url, '/anchor', ANCHOR_HEADERS, anchorBody('origin'));
    expect(posted.status).toBe(202);
    await app.anchorWorker.run('transparency-log', true);
    const paths = await documentedGetPaths(url, () => hashOf('origin'));
    expect(await hostLeaks(url, [...paths, '/'])).toEqual([]);
  });

  it('refuses every smuggling framing with 400 and a closed connection, queueing nothing (P585)', async () => {
    const names: string[] = [];
    const faults = await framingFaults(url, '/anchor', ANCHOR_HEADERS, (name) => {
      names.push(name);
      return anchorBody(name);
    });
    expect(faults).toEqual([]);
    for (const name of names) {
      const answer = await fetch(`${url}/anchor/${hashOf(name)}`);
      await answer.arrayBuffer();
      expect([name, answer.status]).toEqual([name, 404]);
    }
  });
});
