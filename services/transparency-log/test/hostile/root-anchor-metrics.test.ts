// Root anchoring's faults are counted, not only logged (P196): proto_log_root_anchor_failures_total{reason}, read
// over HTTP on the real log's /metrics after a real anchor service front that fails in each way the anchorer tells
// apart. The alert RootAnchorFailing (deploy/monitoring/rules) fires on it.
import type { ServerResponse } from 'node:http';
import type { FrontRequest, HostileFront } from '@proto/testing';
import { answerJson, startHostileFront } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestLog, bundleHash, OPERATOR_AUTH, tempDataDir } from '../../src/test-support.ts';

type Mode = 'honest' | 'refuse' | 'poll-error' | 'reported-failed';
const PENDING = JSON.stringify({ accepted: true, status: 'pending' });
const FAILED = JSON.stringify({ anchor_receipt: { status: 'failed' } });
const METRIC = 'proto_log_root_anchor_failures_total';
const REASONS = ['request_unavailable', 'request_refused', 'anchor_failed', 'poll_failed'] as const;

let mode: Mode = 'honest';
let front: HostileFront;

function anchorService(request: FrontRequest, res: ServerResponse): void {
  if (request.method === 'POST') {
    if (mode === 'refuse') answerJson(res, 503, JSON.stringify({ error: 'busy' }));
    else answerJson(res, 202, PENDING);
  } else if (mode === 'poll-error') answerJson(res, 500, JSON.stringify({ error: 'boom' }));
  else if (mode === 'reported-failed') answerJson(res, 200, FAILED);
  else answerJson(res, 200, PENDING);
}

beforeAll(async () => {
  front = await startHostileFront(anchorService);
});
afterAll(async () => {
  await front?.close();
});

/** The counter's value per reason, as the log's /metrics says over HTTP (absent: undefined). */
async function failures(base: string): Promise<Record<string, number | undefined>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const counts: Record<string, number | undefined> = {};
  for (const reason of REASONS) {
    const line = text.split('\n').find((l) => l.startsWith(`${METRIC}{reason="${reason}"}`));
    counts[reason] = line === undefined ? undefined : Number(line.split(' ').at(-1));
  }
  return counts;
}

async function appendAndSign(app: FastifyInstance, i: number): Promise<void> {
  await app.inject({
    method: 'POST',
    url: '/add',
    payload: { bundle_hash: bundleHash(i, 'anchor-metrics') },
    headers: OPERATOR_AUTH,
  });
  await app.transparencyLog.checkpointer.tick();
}

describe('P196: root anchoring faults are counted on /metrics', () => {
  it('each fault adds one to its reason; a healthy round adds nothing', async () => {
    const data = await tempDataDir('root-anchor-metrics');
    const app = await buildTestLog(
      data.dir,
      { ANCHOR_SERVICE_URL: front.url, ROOT_ANCHOR_INTERVAL_MS: '100', ANCHOR_TIMEOUT_MS: '5000' },
      {},
      { timers: false },
    );
    try {
      const base = await app.listen({ port: 0, host: '127.0.0.1' });
      const anchorer = app.transparencyLog.anchorer!;
      // Every reason is exported at 0 from the start, so increase() sees the first fault.
      expect(await failures(base)).toEqual(Object.fromEntries(REASONS.map((r) => [r, 0])));

      mode = 'refuse';
      await appendAndSign(app, 0);
      await anchorer.tick();
      expect(await failures(base)).toMatchObject({ request_refused: 1, request_unavailable: 0 });

      mode = 'honest';
      await anchorer.tick();
      expect(await failures(base)).toMatchObject({ request_refused: 1, poll_failed: 0 });

      mode = 'poll-error';
      await new Promise((resolve) => setTimeout(resolve, 250));
      await anchorer.tick();
      expect(await failures(base)).toMatchObject({ poll_failed: 1 });
      // The poll's warn line is written once per anchor (P189), but every failed poll is counted.
      await new Promise((resolve) => setTimeout(resolve, 450));
      await anchorer.tick();
      expect(await failures(base)).toMatchObject({ poll_failed: 2 });

      mode = 'reported-failed';
      await new Promise((resolve) => setTimeout(resolve, 850));
      await anchorer.tick();
      expect(await failures(base)).toMatchObject({ anchor_failed: 1 });

      // The anchor service gone: the POST of a new root cannot be exchanged.
      await front.close();
      await appendAndSign(app, 1);
      await anchorer.tick();
      expect(await failures(base)).toMatchObject({ request_unavailable: 1, request_refused: 1 });
    } finally {
      await app.close();
      await data.remove();
    }
  });
});
