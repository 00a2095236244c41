// list_number (D20: monotonic) with two replicas of one store publishing at once: both re-issue timers due, and
// revocations sent to either. No number is used twice, none is skipped, and a client that reads the list from
// either replica, one request after another, never sees the number go back. Brief "races" item 3.
import { verifyRevocationList } from '@proto/core';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JURISDICTION, type RunningService, revoke, startService } from '../../src/test-support.ts';

const REVOCATIONS = 16;

describe.each(dialectsUnderTest())('list_number with two publishing replicas on %s', (dialect) => {
  let target: StoreTarget;
  const replicas: RunningService[] = [];

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'list-number-replicas');
    // A list is due after half its validity (1 s): both timers re-issue during the test.
    const env = { LIST_VALIDITY_S: '2', LIST_MAX_AGE_S: '1' };
    const first = await startService({ store: target.options, env });
    replicas.push(first, await startService({ store: target.options, dataDir: first.dataDir, env }));
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await target?.cleanup();
  });

  it('uses each number once, skips none, and never serves an older list after a newer one', async () => {
    const [a, b] = replicas as [RunningService, RunningService];
    const publicKey = (
      (await (await fetch(`${a.url}/health`)).json()) as { revocation_public_key_b64: string }
    ).revocation_public_key_b64;
    const start = ((await (await fetch(a.listUrl)).json()) as { list_number: number }).list_number;
    const seen: number[] = [];
    let reading = true;
    const reader = (async () => {
      for (let n = 0; reading; n++) {
        const res = await fetch((n % 2 === 0 ? a : b).listUrl);
        const list = (await res.json()) as Record<string, unknown> & { list_number: number };
        expect(
          verifyRevocationList(list, [publicKey], { now: new Date(), expectedJurisdiction: JURISDICTION }).ok,
        ).toBe(true);
        seen.push(list.list_number);
      }
    })();
    const revoked: number[] = [];
    // Revocations in waves across the re-issue instants (a second apart: the timers re-issue between them).
    for (let wave = 0; wave < 4; wave++) {
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const answers = await Promise.all(
        Array.from({ length: REVOCATIONS / 4 }, (_, i) =>
          revoke(i % 2 === 0 ? a : b, `agent:numbers-${wave}-${i}`),
        ),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(201);
        revoked.push(answer.json['list_number'] as number);
      }
    }
    reading = false;
    await reader;

    expect(new Set(revoked).size).toBe(REVOCATIONS);
    for (let i = 1; i < seen.length; i++)
      expect(seen[i], `read ${i}`).toBeGreaterThanOrEqual(seen[i - 1] as number);
    const store = await target.open();
    const latest = (await store.revocation.latestList(JURISDICTION))?.list_number ?? 0;
    // Timers re-issued too: more lists than revocations, all present, none twice (the primary key holds that).
    expect(latest - start).toBeGreaterThan(REVOCATIONS);
    const kept = [];
    for (let n = Math.max(1, latest - 31); n <= latest; n++) {
      const list = await store.revocation.getList(JURISDICTION, n);
      kept.push(list?.list_number);
      expect(JSON.parse(list?.list_json ?? '{}').list_number).toBe(n);
    }
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => latest - kept.length + 1 + i));
    // Each revoked agent is in every list from the number its revocation answered.
    const last = JSON.parse((await store.revocation.getList(JURISDICTION, latest))?.list_json ?? '{}') as {
      entries: { agent_id: string }[];
    };
    expect(last.entries.filter((e) => e.agent_id.startsWith('agent:numbers-'))).toHaveLength(REVOCATIONS);
  });
});
