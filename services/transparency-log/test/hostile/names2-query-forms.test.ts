// P595 (brief "names2" item 2): a reader of the log who writes a query member in array or object form
// (`?tree_size[]=10`, `?tree_size[0]=10`, `?end[x]=3`, brackets %-escaped or not). Fastify's parser keeps such a
// key as it is written (`tree_size[]`), a member no schema names, so the route answered as if it were absent: the
// proof at the current size, the newest checkpoint, the default page. A cache or proxy that reads the qs form
// (`tree_size: ["10"]`) and the log then disagree on which size an answer is for. The real log over HTTP: every
// bracketed key is 400 PROTO-E001, as a repeated one is (P583); plain members and an unknown plain key still answer.
import { describe, expect, it } from 'vitest';
import { bundleHash, OPERATOR_AUTH } from '../../src/test-support.ts';
import { listeningLogForFile } from './test-helpers.ts';

const log = listeningLogForFile('names2-query-forms');

async function get(path: string) {
  const answer = await fetch(`${log().url}${path}`);
  const text = await answer.text();
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    code = undefined;
  }
  return { status: answer.status, code, text };
}

describe('P595: query members in array or object form on the log', () => {
  it('are 400 PROTO-E001, never an answer for another size', async () => {
    for (let i = 0; i < 12; i++) {
      const added = await fetch(`${log().url}/add`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...OPERATOR_AUTH },
        body: JSON.stringify({ bundle_hash: bundleHash(i, 'names2-query-forms') }),
      });
      expect(added.status).toBe(201);
      await added.arrayBuffer();
    }
    for (const path of [
      '/proof/3?tree_size[]=10',
      '/proof/3?tree_size%5B%5D=10',
      '/proof/3?tree_size[0]=10',
      '/tlog-proof/3?tree_size[]=10',
      '/checkpoint?tree_size[]=5',
      '/consistency?first=1&second[]=5',
      '/consistency?first[]=1',
      '/entries?start[]=5',
      '/entries?start=0&end[x]=3',
      `/lookup?bundle_hash[]=${bundleHash(0, 'names2-query-forms')}`,
      '/root?tree_size[]=5',
      '/proof/3?tree_size=10&unrelated[]=1',
    ]) {
      const answer = await get(path);
      expect([path, answer.status, answer.code]).toEqual([path, 400, 'PROTO-E001']);
      // The refusal names no byte of the caller's key beyond the member's plain name.
      expect(answer.text).not.toMatch(/\[x\]|%5B/i);
    }
    for (const path of [
      '/proof/3?tree_size=10',
      '/checkpoint',
      '/root?unrelated=1',
      '/entries?start=0&end=3',
    ]) {
      const answer = await get(path);
      expect([path, answer.status]).toEqual([path, 200]);
    }
  });
});
