// P473: the filter of retired kids pages through more than one page (1 000) of retirements on real stores: a first
// fill over ~3 000 retirements in five retiring transactions (each one numbered once, so a page boundary falls inside
// one number), then a refresh that reads only what was retired since. Every retired kid is in the filter.
import type { Store } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, passport, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetiredKidFilter } from '../src/retired-kid-filter.ts';

const AGENTS = 5;
const KIDS_PER_AGENT = 600;

/** A 32-hex kid, distinct for each (agent, index). */
const kidOf = (agent: number, index: number) =>
  `${agent.toString(16).padStart(4, '0')}${index.toString(16).padStart(4, '0')}`.repeat(4);

/** Binds `KIDS_PER_AGENT` kids to an agent, then retires all but the first with a newer passport. */
async function retireMost(store: Store, agent: number): Promise<string[]> {
  const id = `agent:paging-${agent}`;
  const kids = Array.from({ length: KIDS_PER_AGENT }, (_, i) => kidOf(agent, i));
  await store.keys.applyPassport(passport(id, '2026-01-01T00:00:00Z', `sha256:${agent}a`, kids));
  const outcome = await store.keys.applyPassport(
    passport(id, '2026-01-02T00:00:00Z', `sha256:${agent}b`, [kids[0] as string]),
  );
  expect(outcome.retired).toBe(KIDS_PER_AGENT - 1);
  return kids.slice(1);
}

describe.each(dialectsUnderTest())('the filter of retired kids past one page on %s', (dialect) => {
  let target: StoreTarget;
  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'retired-kid-paging');
  });
  afterAll(async () => {
    await target?.cleanup();
  });

  it('holds every retired kid after a fill of several pages, and a refresh reads only the new ones', async () => {
    const writer = await target.open();
    const reader = await target.open();
    const retired: string[] = [];
    for (let agent = 0; agent < AGENTS - 1; agent++) retired.push(...(await retireMost(writer, agent)));

    // The reader's store, its paging counted where it stands.
    const real = reader.keys.retiredSince.bind(reader.keys);
    const pages: number[] = [];
    reader.keys.retiredSince = async (after, limit) => {
      const page = await real(after, limit);
      pages.push(page.length);
      return page;
    };
    const filter = new RetiredKidFilter(reader);
    expect(filter.filled).toBe(false);
    await filter.refresh();
    expect(filter.filled).toBe(true);
    // 2 396 retirements: three full pages and one short one.
    expect(pages).toEqual([1000, 1000, 396]);
    expect(retired.filter((k) => !filter.has([k]))).toEqual([]);
    // The kept kids are live: at this fill (~2 400 of 2^20 bits × 4) a false hit among them is very unlikely.
    expect(Array.from({ length: AGENTS }, (_, a) => kidOf(a, 0)).filter((k) => filter.has([k]))).toEqual([]);
    expect(filter.fillRatio()).toBeGreaterThan(0);
    expect(filter.fillRatio()).toBeLessThan(0.01);

    // More retirements: the next refresh reads them alone, from the number after the last one read.
    const more = await retireMost(writer, AGENTS - 1);
    pages.length = 0;
    await filter.refresh();
    expect(pages).toEqual([KIDS_PER_AGENT - 1]);
    expect(more.filter((k) => !filter.has([k]))).toEqual([]);

    // A smaller filter (RETIRED_KID_FILTER_BITS_LOG2=16, P470) holds the same kids, fuller: 1 - e^(-4·2995/65536).
    const small = new RetiredKidFilter(reader, 16);
    await small.refresh();
    expect([...retired, ...more].filter((k) => !small.has([k]))).toEqual([]);
    expect(small.fillRatio()).toBeGreaterThan(0.15);
    expect(small.fillRatio()).toBeLessThan(0.18);
  });
});
