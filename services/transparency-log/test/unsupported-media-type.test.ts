// Every 415 (a Content-Type the service does not read, a charset other than UTF-8, a Content-Encoding) carries the
// profile's PROTO-E001, as a body that is not JSON does: the body is no document this service can read (P202).
// Over real HTTP, on the transparency log's write route, with its operator token: refused before it is read.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTransparencyLog, loadTransparencyLogConfig } from '../src/index.ts';

const TOKEN = 'log-operator-token-for-media-type-tests';
let log: FastifyInstance;
let url: string;

beforeAll(async () => {
  log = await buildTransparencyLog({
    config: loadTransparencyLogConfig({
      LOG_LEVEL: 'silent',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'tlog-media-type-')),
      OPERATOR_TOKEN: TOKEN,
      ADD_RATE_LIMIT_PER_MINUTE: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
    }),
    logger: false,
  });
  url = await log.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await log?.close();
});

const BODY = JSON.stringify({ bundle_hash: `sha256:${'ab'.repeat(32)}` });

async function add(headers: Record<string, string>, body: string | Buffer = BODY) {
  const answer = await fetch(`${url}/add`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, ...headers },
    body,
  });
  return { status: answer.status, body: (await answer.json()) as { error: Record<string, unknown> } };
}

describe('a 415 carries PROTO-E001 (P202)', () => {
  it.each([
    ['a media type the service does not read', { 'content-type': 'text/xml' }, /Content-Type/],
    ['a charset other than UTF-8', { 'content-type': 'application/json; charset=utf-16' }, /charset/],
    [
      'a Content-Encoding',
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      /Content-Encoding/,
    ],
  ])('%s: 415 PROTO-E001, not retryable, the reason in the message', async (_what, headers, reason) => {
    const answer = await add(headers);
    expect(answer.status).toBe(415);
    expect(answer.body.error).toMatchObject({ code: 'PROTO-E001', retryable: false });
    expect(answer.body.error['message']).toMatch(reason);
  });

  it('a JSON body is still appended (the control)', async () => {
    const answer = await add({ 'content-type': 'application/json' });
    expect(answer.status).toBe(201);
  });
});
