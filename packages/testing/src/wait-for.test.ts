import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from './free-port.ts';
import { waitFor } from './wait-for.ts';

describe('waitFor', () => {
  it('resolves with the first answer that is neither undefined nor false', async () => {
    let calls = 0;
    const answer = await waitFor(
      () => (++calls >= 3 ? { calls } : calls === 1 ? undefined : false),
      2000,
      'x',
      1,
    );
    expect(answer).toEqual({ calls: 3 });
  });

  it('ends the wait with the error of a probe that throws', async () => {
    let calls = 0;
    const failure = waitFor(
      () => {
        calls += 1;
        if (calls === 2) throw new Error('the child exited');
        return undefined;
      },
      5000,
      'x',
      1,
    );
    await expect(failure).rejects.toThrow('the child exited');
    expect(calls).toBe(2);
  });

  it('rejects naming what it waited for once the time is up', async () => {
    const started = Date.now();
    let calls = 0;
    const failure = waitFor(() => ++calls < 0, 100, 'the service to listen', 10);
    await expect(failure).rejects.toThrow('timed out after 100 ms waiting for the service to listen');
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(calls).toBeGreaterThan(1);
  });
});

describe('freePort', () => {
  it('gives a loopback port a server can then listen on', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});
