// A JSON-array batch with an empty element (`[b1,b2,]`, `[,b1]`, `[b1,,b2]`) is not a JSON array: the elements the
// caller meant and the answers it gets would no longer line up one to one (three answers for two bundles). The
// whole body is split before anything is verified or charged, so it is refused as a whole, as an unclosed array is,
// with nothing answered yet. Over real HTTP. P175.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';

let running: RunningApp;
beforeAll(async () => {
  running = await startApp({ VERIFY_WORKERS: '1' });
});
afterAll(async () => {
  await running?.close();
});

async function postBatch(body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${running.url}/verify/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, text: await res.text() };
}

describe('a JSON-array batch with an empty element', () => {
  it.each(['[{},{},]', '[{},{} , \n]', '[,{}]', '[{},,{}]', '[,]'])(
    '%j is refused whole with 400',
    async (body) => {
      const answer = await postBatch(body);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({
        error: { code: 'BAD_REQUEST', message: expect.stringMatching(/empty element/) },
      });
    },
  );

  it('an element that is there but is no request still gets its own answer', async () => {
    const answer = await postBatch('[{}, 1, "x"]');
    expect(answer.status).toBe(200);
    const lines = answer.text.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ verified: false });
  });
});
