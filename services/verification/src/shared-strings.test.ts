// A cached analysis holds one copy of each string many analyses repeat (P126): measured on the heap, since
// which copy a string is cannot be seen from JavaScript.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { buildSignedBundle, createVerifier, selectCryptoBackend } from '@proto/core';
import { describe, expect, it } from 'vitest';
import { withSharedStrings } from './shared-strings.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const built = createVerifier({ backend: selectCryptoBackend('auto') });
if (!built.ok) throw new Error(built.error.message);
const analysis = built.value.analyze({
  signed_bundle: buildSignedBundle({ tier: 'standard', entries: 3 }).signed_bundle,
});

/** Heap bytes per value that `count` values made by `make` keep alive. */
function heapPerValue(make: () => unknown, count: number): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const held = Array.from({ length: count }, make);
  gc();
  const after = process.memoryUsage().heapUsed;
  expect(held).toHaveLength(count);
  return (after - before) / count;
}

describe('withSharedStrings', () => {
  it('keeps every member, in order, undefined ones and an own __proto__ included', () => {
    const value = JSON.parse('{"a":"x","__proto__":{"b":["y",1,null,true]},"c":{}}') as Record<
      string,
      unknown
    >;
    value['d'] = undefined;
    const copy = withSharedStrings(value);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['a', '__proto__', 'c', 'd']);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
    expect(copy).toStrictEqual(value);
    expect(withSharedStrings(structuredClone(analysis))).toStrictEqual(analysis);
    expect(JSON.stringify(withSharedStrings(structuredClone(analysis)))).toBe(JSON.stringify(analysis));
  });

  it('holds a cloned analysis in far less heap than the clone itself', () => {
    // What the main thread receives from a verification thread is a structured clone.
    const count = 4000;
    const cloned = heapPerValue(() => structuredClone(analysis), count);
    const shared = heapPerValue(() => withSharedStrings(structuredClone(analysis)), count);
    expect(shared).toBeLessThan(cloned * 0.7);
  });
});
