// The committed bundle corpus is exactly what the builder generates: regenerate in memory and
// compare byte for byte; UPDATE_VECTORS=1 rewrites the files instead. Deterministic by design.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateSchema } from '../../schema/index.ts';
import { CORPUS_DIR } from './corpus/fixture-context.ts';
import { corpusFiles, generateCorpus, readCorpus, writeCorpus } from './corpus/generate.ts';
import { applyPatch, diffJson } from './corpus/json-patch.ts';

const UPDATE = process.env['UPDATE_VECTORS'] === '1';

describe('bundle corpus generator', () => {
  const corpus = generateCorpus();

  it.runIf(UPDATE)('rewrites the corpus (UPDATE_VECTORS=1)', () => {
    writeCorpus(corpus);
    expect(existsSync(`${CORPUS_DIR}index.json`)).toBe(true);
  });

  it('regenerates byte-identical files (fixed seeds, clock and randomness; deterministic ML-DSA)', () => {
    for (const [file, text] of corpusFiles(corpus)) {
      const path = `${CORPUS_DIR}${file}`;
      expect(existsSync(path), `${file} is missing: run UPDATE_VECTORS=1`).toBe(true);
      expect(
        readFileSync(path, 'utf8') === text,
        `${file} differs from the builder output: run UPDATE_VECTORS=1`,
      ).toBe(true);
    }
  });

  it('has at least 80 cases with unique ids, and every base bundle passes its schema', () => {
    const { index } = readCorpus();
    expect(index.cases.length).toBeGreaterThanOrEqual(80);
    expect(new Set(index.cases.map((c) => c.id)).size).toBe(index.cases.length);
    for (const [name, bundle] of Object.entries(corpus.bases)) {
      const verdict = validateSchema(name.startsWith('v1') ? 'v1' : 'v2', 'signed_bundle', bundle);
      expect(verdict.valid, name).toBe(true);
    }
  });

  it('stores every case as a patch that reproduces the generated bundle', () => {
    const { cases } = readCorpus();
    for (const c of cases) {
      expect(
        diffJson(applyPatch(corpus.bases[c.stored.base], c.stored.patch), c.request['signed_bundle']),
      ).toEqual([]);
    }
  });
});

describe('json patch', () => {
  it('diff then apply gives the target back (objects, arrays, removals, additions)', () => {
    const from = { a: 1, b: { c: [1, 2, 3], d: 'x' }, 'e/f': { '~g': true }, gone: null };
    const to = { a: 2, b: { c: [1, 5, 3], d: 'x', n: [] }, 'e/f': { '~g': false }, list: [1] };
    const patch = diffJson(from, to);
    expect(patch).toContainEqual({ op: 'remove', path: '/gone' });
    expect(patch).toContainEqual({ op: 'replace', path: '/e~1f/~0g', value: false });
    expect(applyPatch(from, patch)).toEqual(to);
    expect(from.b.c).toEqual([1, 2, 3]);
  });

  it('rejects a path that does not exist', () => {
    expect(() => applyPatch({ a: {} }, [{ op: 'replace', path: '/b/c', value: 1 }])).toThrow(
      /does not exist/,
    );
  });
});
