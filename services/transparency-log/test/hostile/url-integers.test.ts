// Tree sizes and indices in URLs are plain decimal: the spelling a client sends must not pick another
// number than it reads ("0x10" is not 16), and a number past every float is a 400, never a 500.
// Brief "redservices"; P151.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestLog, bundleHash, OPERATOR_AUTH, tempDataDir } from '../../src/test-support.ts';

let app: FastifyInstance;
let url: string;
let removeDir: () => Promise<unknown>;

beforeAll(async () => {
  const temp = await tempDataDir('url-integers');
  removeDir = temp.remove;
  app = await buildTestLog(temp.dir, {}, {}, { timers: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  for (let i = 0; i < 20; i++) {
    const added = await fetch(`${url}/add`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...OPERATOR_AUTH },
      body: JSON.stringify({ bundle_hash: bundleHash(i, 'url-integers') }),
    });
    expect(added.status).toBe(201);
    await added.arrayBuffer();
  }
});
afterAll(async () => {
  await app?.close();
  await removeDir?.();
});

async function get(path: string): Promise<{ status: number; code: string | undefined; text: string }> {
  const response = await fetch(`${url}${path}`);
  const text = await response.text();
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    code = undefined;
  }
  return { status: response.status, code, text };
}

// Each spelling is read as a small number by a lenient coercion (or as Infinity): 16, 10, 1, 1, 1, 1, ∞.
const NOT_DECIMAL = ['0x10', '1e1', '%201', '+1', '01', '1.0', '1e400'];
// Past any float: Number() reads it as Infinity.
const HUGE_DECIMAL = `1${'0'.repeat(400)}`;

describe('integers in tlog URLs are canonical decimal', () => {
  it('path indices in another spelling are 400 INVALID_ID, not the proof of another leaf', async () => {
    for (const route of ['/proof/', '/tlog-proof/']) {
      for (const spelling of [...NOT_DECIMAL, HUGE_DECIMAL]) {
        const answer = await get(`${route}${spelling}`);
        expect([route, spelling, answer.status, answer.code]).toEqual([route, spelling, 400, 'INVALID_ID']);
      }
    }
  });

  it('query sizes and bounds in another spelling are 400 PROTO-E001, never a 500', async () => {
    const queries = [
      '/proof/3?tree_size=',
      '/tlog-proof/3?tree_size=',
      '/checkpoint?tree_size=',
      '/consistency?first=',
      '/consistency?first=1&second=',
      '/entries?start=',
      '/entries?start=0&end=',
    ];
    for (const query of queries) {
      for (const spelling of [...NOT_DECIMAL, HUGE_DECIMAL]) {
        const answer = await get(`${query}${spelling}`);
        expect([query, spelling, answer.status, answer.code]).toEqual([query, spelling, 400, 'PROTO-E001']);
        expect(answer.text).not.toMatch(/Infinity|at .*\.ts/);
      }
    }
  });

  it('plain decimals still answer, up to 2^53 - 1', async () => {
    expect((await get('/proof/16')).status).toBe(200);
    expect((await get('/proof/0?tree_size=16')).status).toBe(200);
    expect((await get('/consistency?first=10&second=20')).status).toBe(200);
    expect((await get('/entries?start=10&end=16')).status).toBe(200);
    expect((await get('/checkpoint')).status).toBe(200);
    const beyond = await get(`/proof/${Number.MAX_SAFE_INTEGER}`);
    expect([beyond.status, beyond.code]).toEqual([404, 'NOT_FOUND']);
    const over = await get('/proof/9007199254740993');
    expect([over.status, over.code]).toEqual([400, 'INVALID_ID']);
  });
});
