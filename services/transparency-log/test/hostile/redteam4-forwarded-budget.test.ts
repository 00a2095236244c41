// redteam4 (P588, held, pinned): a client talking straight to the log, under the default TRUST_PROXY (false), sends
// each POST /add with a fresh forged address in every header a proxy or framework reads one from (X-Forwarded-For,
// Forwarded for=, X-Real-IP, True-Client-IP, CF-Connecting-IP, X-Client-IP), hoping each counts as a new client with
// a new rate-limit budget. Over real HTTP: the TCP peer is counted, so the budget runs out as for one client.
import { listenOnPort0, type TempDir } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestLog, bundleHash, OPERATOR_AUTH, tempDataDir } from '../../src/test-support.ts';

const BUDGET = 3;
let temp: TempDir;
let running: Awaited<ReturnType<typeof listenOnPort0>>;
beforeAll(async () => {
  temp = await tempDataDir('redteam4-forwarded');
  const env = { ADD_RATE_LIMIT_PER_MINUTE: String(BUDGET) };
  running = await listenOnPort0(await buildTestLog(temp.dir, env, {}, { timers: false }));
});
afterAll(async () => {
  await running?.close();
  await temp?.remove();
});

const forgedFrom = (i: number) => {
  const address = `198.51.100.${i + 1}`;
  return {
    'x-forwarded-for': address,
    forwarded: `for=${address}`,
    'x-real-ip': address,
    'true-client-ip': address,
    'cf-connecting-ip': address,
    'x-client-ip': address,
  };
};

describe('P588: forged client addresses under the default TRUST_PROXY', () => {
  it('give no fresh rate-limit budget', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= BUDGET; i++) {
      const answer = await fetch(`${running.url}/add`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...OPERATOR_AUTH, ...forgedFrom(i) },
        body: JSON.stringify({ bundle_hash: bundleHash(i, 'redteam4-forwarded') }),
      });
      await answer.arrayBuffer();
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([201, 201, 201, 429]);
  });
});
