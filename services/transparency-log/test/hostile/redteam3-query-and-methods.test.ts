// P583 (held, pinned): a reader of the log who writes a query parameter twice (`?tree_size=10&tree_size=5`), hoping
// one layer (a cache, a proxy, the log) reads the first and another the last and a proof for one size is filed under
// the other; a tile path spelled with escapes or dot segments (`/tile/0/%30%30%30`, `/tile/0/%2e%2e/000`); a method
// no route serves (OPTIONS, PATCH, DELETE, PUT). The real log over HTTP: a duplicated parameter is 400 PROTO-E001
// (Fastify hands the route an array, which the integer schema refuses), never a proof for either size; an escaped
// digit names the same immutable tile (so a cache keyed on either holds the right bytes) and a dot segment is 400;
// other methods are 405 naming the allowed ones.
import { describe, expect, it } from 'vitest';
import { bundleHash, OPERATOR_AUTH } from '../../src/test-support.ts';
import { listeningLogForFile } from './test-helpers.ts';

const log = listeningLogForFile('redteam3-query-and-methods');

async function get(path: string, method = 'GET') {
  const answer = await fetch(`${log().url}${path}`, { method });
  const bytes = new Uint8Array(await answer.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    code = undefined;
  }
  return { status: answer.status, code, bytes, text };
}

describe('P583: duplicated query parameters, escaped tile paths and stray methods on the log', () => {
  it('holds', async () => {
    for (let i = 0; i < 300; i++) {
      const added = await fetch(`${log().url}/add`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...OPERATOR_AUTH },
        body: JSON.stringify({ bundle_hash: bundleHash(i, 'redteam3-query') }),
      });
      expect(added.status).toBe(201);
      await added.arrayBuffer();
    }
    for (const path of [
      '/proof/3?tree_size=10&tree_size=5',
      '/consistency?first=1&second=5&first=3',
      '/entries?start=0&start=5&end=7',
      '/entries?start=0&end=7&end=1',
    ]) {
      const answer = await get(path);
      expect([path, answer.status, answer.code]).toEqual([path, 400, 'PROTO-E001']);
    }

    const tile = await get('/tile/0/000');
    expect(tile.status).toBe(200);
    expect(tile.bytes.length).toBe(256 * 32);
    const escaped = await get('/tile/0/%30%30%30');
    expect(escaped.status).toBe(200);
    expect(Buffer.from(escaped.bytes).equals(Buffer.from(tile.bytes))).toBe(true);
    for (const path of ['/tile/0/%2e%2e/000', '/tile/0/000.p/0', '/tile/0/000.p/256', '/tile/00/000']) {
      const answer = await get(path);
      expect([path, answer.status, answer.code]).toEqual([path, 400, 'BAD_REQUEST']);
    }

    for (const method of ['OPTIONS', 'PATCH', 'DELETE', 'PUT']) {
      const answer = await get('/checkpoint', method);
      expect([method, answer.status, answer.code]).toEqual([method, 405, 'METHOD_NOT_ALLOWED']);
      expect(JSON.parse(answer.text).error.details.allowed).toEqual(['GET', 'HEAD']);
    }
  });
});
