// P410: the filter of retired kids on real stores, two processes over one database. A kid retired by one replica is
// seen by the other after its refresh; a bundle whose signing kids are not retired never reaches the store.

import type { VerifyResponse } from '@proto/core';
import { createStoreTarget, dialectsUnderTest, kid, passport, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BundleSubject } from '../src/bundle-subject.ts';
import { type RetiredKeyLookup, withRetiredKeyWarnings } from '../src/retired-keys.ts';
import { RetiredKidFilter } from '../src/retired-kid-filter.ts';

describe.each(dialectsUnderTest())('the filter of retired kids on %s', (dialect) => {
  let target: StoreTarget;
  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'retired-kid-filter');
  });
  afterAll(async () => {
    await target?.cleanup();
  });

  it('sees another replica’s retirement after a refresh, and asks the store nothing for a live kid', async () => {
    const writer = await target.open();
    const reader = await target.open();
    const agent = 'agent:filter';
    await writer.keys.applyPassport(
      passport(agent, '2026-01-01T00:00:00Z', 'sha256:f1', [kid('1'), kid('2')]),
    );
    const filter = new RetiredKidFilter(reader);
    await filter.refresh();
    expect(filter.has([kid('1')]) || filter.has([kid('2')])).toBe(false);

    // The writer replica retires kid 2; the reader's filter knows once it refreshes.
    await writer.keys.applyPassport(passport(agent, '2026-01-02T00:00:00Z', 'sha256:f2', [kid('1')]));
    await filter.refresh();
    expect(filter.has([kid('2')])).toBe(true);
    expect(filter.has([kid('1')])).toBe(false);

    let queries = 0;
    const lookup: RetiredKeyLookup = Object.assign(
      (kids: readonly string[], subjects: readonly string[]) => {
        queries += 1;
        return reader.keys.retiredBindings(kids, subjects);
      },
      { filter: filter.shared },
    );
    const response = { verified: true, version: '2.0' } as VerifyResponse;
    const subject = (signerKids: string[]) => ({ agentId: agent, signerKids }) as unknown as BundleSubject;
    const live = await withRetiredKeyWarnings(response, subject([kid('1')]), lookup);
    expect(live.warnings ?? []).toEqual([]);
    expect(queries).toBe(0);
    const retired = await withRetiredKeyWarnings(response, subject([kid('2')]), lookup);
    expect(queries).toBe(1);
    expect(retired.warnings?.join('\n')).toContain(kid('2'));
    await writer.close();
    await reader.close();
  });
});
