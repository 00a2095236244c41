// A batch row of bench/run.ts measures whole batches only: none cut off at a deadline, none of the
// warm-up's still running when the counters are read. Issue 14 item 3, P91.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runLength, runRow } from './load-plan.ts';

/** A service whose every answer takes `delayMs`, recording what it finished and what was cut off. */
function slowService(delayMs: number) {
  const log = { answered: 0, cutOff: 0, inFlight: 0 };
  const server = createServer((request, response) => {
    log.inFlight++;
    let done = false;
    request.resume();
    response.on('close', () => {
      log.inFlight--;
      if (!done) log.cutOff++;
    });
    request.on('end', () => {
      setTimeout(() => {
        done = true;
        log.answered++;
        response.end('{}');
      }, delayMs);
    });
  });
  return { server, log };
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function listen(s: Server): Promise<string> {
  server = s;
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/verify/batch`;
}

describe('bench batch rows', () => {
  it('answers every batch sent, warm-up included, and counts exactly the measured ones', async () => {
    // Batches slower than the single-request warm-up (1 s): a deadline would cut them off.
    const { server: s, log } = slowService(1_200);
    const url = await listen(s);
    const seen: { before?: number; after?: number; inFlightBefore?: number } = {};
    const run = await runRow(
      {
        url,
        contentType: 'application/x-ndjson',
        accept: 'application/x-ndjson',
        body: 'x\n',
        perRequest: 64,
      },
      { perRequest: 64, connections: 2, durationS: 1, batches: 3 },
      {
        before: () => {
          seen.before = log.answered;
          seen.inFlightBefore = log.inFlight;
        },
        after: () => {
          seen.after = log.answered;
        },
      },
    );
    expect(log.cutOff).toBe(0);
    // Nothing of the warm-up is still being served when the measured part starts.
    expect(seen.inFlightBefore).toBe(0);
    expect(seen.before).toBe(2);
    expect(seen.after! - seen.before!).toBe(3);
    expect(run.answered).toBe(3);
    // Two connections, three batches of 1.2 s: two rounds, about 2.4 s, timed to the last answer and not to
    // autocannon's next one-second tick (3 s), which would count the idle tail as the service's (P101).
    expect(run.bundlesPerSecond).toBeCloseTo((3 * 64) / (run.wallMs / 1000), 6);
    expect(run.wallMs).toBeGreaterThan(2_300);
    expect(run.wallMs).toBeLessThan(2_800);
  });

  it('times single requests by duration, as before', () => {
    expect(runLength({ perRequest: 1, connections: 8, durationS: 5, batches: 16 }, false)).toEqual({
      duration: 5,
    });
    expect(runLength({ perRequest: 1, connections: 8, durationS: 5, batches: 16 }, true)).toEqual({
      duration: 1,
    });
    expect(runLength({ perRequest: 20, connections: 2, durationS: 5, batches: 16 }, false)).toEqual({
      amount: 16,
    });
  });
});
