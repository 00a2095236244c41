// A client whose bundle budget is spent must not make the service read, scan and copy another batch body of up to
// 8 MiB before it is told so: the budget is looked at before the body is read (P166). Over real HTTP.
import { rawConnection } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';

let running: RunningApp;

beforeAll(async () => {
  running = await startApp({ VERIFY_WORKERS: '1', VERIFY_RATE_LIMIT_PER_MINUTE: '2' });
});
afterAll(async () => {
  await running?.close();
});

/**
 * Opens a batch declaring `declared` bytes, sends its first byte only, and resolves with the answer's head once it
 * came within `ms` (or whatever came by then, `no answer` for nothing).
 */
async function stalledBatch(declared: number, ms: number): Promise<string> {
  const connection = await rawConnection(running.url);
  try {
    await connection.write(
      `POST /verify/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${declared}\r\n\r\n{`,
    );
    const received = await connection.until(/\r\n\r\n/, ms);
    return received === '' ? 'no answer' : received;
  } finally {
    connection.destroy();
  }
}

describe('a batch from a client whose budget is spent', () => {
  it('is refused with 429 before its body is read', async () => {
    // Two items spend the budget of two bundles a minute (they are charged before they are verified).
    const spend = await fetch(`${running.url}/verify/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: '{}\n{}\n',
    });
    expect(spend.status).toBe(200);
    await spend.text();
    const answer = await stalledBatch(4 * 1024 * 1024, 5_000);
    expect(answer).toMatch(/^HTTP\/1\.1 429 /);
    expect(answer).toContain('retry-after');
  }, 20_000);

  it('a client with budget left still sends its batch', async () => {
    const other = await startApp({ VERIFY_WORKERS: '1', VERIFY_RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const answer = await fetch(`${other.url}/verify/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: '{}\n{}\n',
      });
      expect(answer.status).toBe(200);
      await answer.text();
    } finally {
      await other.close();
    }
  });
});
