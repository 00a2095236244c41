// P595 (brief "names2" item 2): a reader of a /v2 record who writes `?version=` twice or in array form. The testament
// route read the first of `?version=1&version=2` and ignored `?version[]=2` (a key no route names), so a cache keyed
// on the last value, or on the qs form, held one version's answer under another's URL. The real service over HTTP:
// every repeated or bracketed query member is 400 PROTO-E001, as on the log (P583), before any record is read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

let service: VerifierWithRecords;
beforeAll(async () => {
  service = await startVerifierWithRecords('sqlite', 'names2-query-forms');
}, 60_000);
afterAll(async () => {
  await service?.close();
});

async function get(path: string) {
  const answer = await fetch(`${service.url}${path}`);
  const body = (await answer.json()) as { error?: { code?: string } };
  return { status: answer.status, code: body.error?.code };
}

describe('P595: repeated and bracketed query members on the verification service', () => {
  it('are 400 PROTO-E001', async () => {
    const testament = '/v2/succession/testament/agent-names2-0001';
    for (const path of [
      `${testament}?version=1&version=2`,
      `${testament}?version[]=2`,
      `${testament}?version%5B0%5D=2`,
      '/health?probe[]=1',
    ]) {
      const answer = await get(path);
      expect([path, answer.status, answer.code]).toEqual([path, 400, 'PROTO-E001']);
    }
    expect((await get(`${testament}?version=1`)).status).toBe(404);
    expect((await get('/health?probe=1')).status).toBe(200);
  });
});
