// P595 (brief "names2" item 2): a reader of the log who writes a query member in array or object form
// (`?tree_size[]=10`, `?tree_size[0]=10`, `?end[x]=3`, brackets %-escaped or not). Fastify's parser keeps such a
// key as it is written (`tree_size[]`), a member no schema names, so the route answered as if it were absent: the
// proof at the current size, the newest checkpoint, the default page. A cache or proxy that reads the qs form
// (`tree_size: ["10"]`) and the log then disagree on which size an answer is for. The real log over HTTP: every
// bracketed key is 400 PROTO-E001, as a repeated one is (P583); plain members and an unknown plain key still answer.
import { describe, expect, it } from 'vitest';
import { appendHashes } from '../../src/test-helpers.ts';
import { bundleHash } from '../../src/test-support.ts';
import { listeningLogForFile } from './test-helpers.ts';

const log = listeningLogForFile('names2-query-forms');

/** The answer's status and, when it is an error, its code. */
async function get(path: string) {
  const answer = await fetch(`${log().url}${path}`);
  const text = await answer.text();
  const code = answer.ok ? undefined : (JSON.parse(text) as { error: { code: string } }).error.code;
  return { status: answer.status, code, text };
}

describe('P595: query members in array or object form on the log', () => {
  it('are 400 PROTO-E001, never an answer for another size', async () => {
    await appendHashes(
      log().app,
      Array.from({ length: 12 }, (_, i) => bundleHash(i, 'names2-query-forms')),
    );
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
