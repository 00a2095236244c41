// P261: the request line the service logs names the URL without the query string's values. A client (or a tool
// that puts credentials in URLs) sending `?access_token=…`, `?token=…`, `?secret=…` or `?key=…` had the value
// written to the log in clear, where the operator token itself is never written. The real service; its log lines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService, TOKEN } from '../../src/test-support.ts';

let service: RunningService;
beforeAll(async () => {
  service = await startService({ timer: false });
});
afterAll(() => service.close());

const SECRETS = [
  'tok-4a1d-query-secret',
  'acc-77e0-query-secret',
  'sec-90b2-query-secret',
  'key-1c3f-query-secret',
];

describe('P261: query values never reach the request log', () => {
  it('a token in the query string is not logged; the path and the parameter names are', async () => {
    const query = `token=${SECRETS[0]}&access_token=${SECRETS[1]}&secret=${SECRETS[2]}&key=${SECRETS[3]}&flag`;
    for (const path of [`/revocations/agent-query-log-0001?${query}`, `/no-such-route?${query}`]) {
      const res = await fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      await res.arrayBuffer();
    }
    const text = service.logs.join('');
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    const lines = service.logs
      .join('')
      .split('\n')
      .filter((line) => line.includes('"request completed"'))
      .map((line) => JSON.parse(line) as { url: string });
    expect(lines.map((line) => line.url)).toEqual(
      expect.arrayContaining([
        '/revocations/agent-query-log-0001?token=…&access_token=…&secret=…&key=…&…',
        '/no-such-route?token=…&access_token=…&secret=…&key=…&…',
      ]),
    );
  });
});
