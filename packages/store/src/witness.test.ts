// Tests of the witness heads on every dialect: first insert, compare-and-swap moves, racing writers on
// two stores of one database (only one wins), survival across a reopen. Issue 18 item 2, P49.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

const root = (c: string) => c.repeat(64);
const head = (size: number, c: string) => ({ size, rootHex: root(c), checkpoint: `note ${size} ${c}\n` });

describe.each(dialectsUnderTest())('witness heads on %s', (dialect) => {
  let target: StoreTarget;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'witness');
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('inserts once, then moves only from the head it expects', async () => {
    const store = await target.open(target.fresh('cas'));
    const repo = store.witness;
    expect(await repo.head('log.example/a')).toBeUndefined();
    expect(await repo.advance('log.example/a', undefined, head(3, 'a'))).toBe(true);
    // A second "first" insert loses: the head exists now.
    expect(await repo.advance('log.example/a', undefined, head(4, 'b'))).toBe(false);
    // Wrong expected size, or right size with another root: nothing moves.
    expect(await repo.advance('log.example/a', { size: 2, rootHex: root('a') }, head(5, 'c'))).toBe(false);
    expect(await repo.advance('log.example/a', { size: 3, rootHex: root('b') }, head(5, 'c'))).toBe(false);
    expect(await repo.advance('log.example/a', { size: 3, rootHex: root('a') }, head(2 ** 40, 'c'))).toBe(
      true,
    );
    const stored = await repo.head('log.example/a');
    expect(stored).toMatchObject({ size: 2 ** 40, rootHex: root('c'), checkpoint: `note ${2 ** 40} c\n` });
    expect(await repo.head('log.example/b')).toBeUndefined();
  });

  it('lets exactly one of many racing writers on two stores move the same head, and survives a reopen', async () => {
    const options = target.fresh('race');
    const first = await target.open(options);
    expect(await first.witness.advance('o', undefined, head(1, 'a'))).toBe(true);
    const [a, b] = await Promise.all([target.open(options), target.open(options)]);
    const expected = { size: 1, rootHex: root('a') };
    const wins = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? a : b).witness.advance('o', expected, head(2 + i, i % 2 === 0 ? 'b' : 'c')),
      ),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    const firstInserts = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 === 0 ? a : b).witness.advance('fresh', undefined, head(i, 'd')),
      ),
    );
    expect(firstInserts.filter(Boolean)).toHaveLength(1);
    await first.close();
    const reopened = await target.open(options);
    const winner = wins.indexOf(true);
    expect((await reopened.witness.head('o'))?.size).toBe(2 + winner);
  });

  it('rejects nonsense arguments', async () => {
    const repo = (await target.open(target.fresh('args'))).witness;
    await expect(repo.advance('', undefined, head(1, 'a'))).rejects.toThrow(TypeError);
    await expect(repo.advance('x', undefined, { ...head(1, 'a'), size: -1 })).rejects.toThrow(TypeError);
    await expect(repo.advance('x', undefined, { ...head(1, 'a'), rootHex: 'AB' })).rejects.toThrow(TypeError);
    await expect(repo.advance('x', undefined, { ...head(1, 'a'), checkpoint: '' })).rejects.toThrow(
      TypeError,
    );
  });
});
