// The verify page hashes as core does, refusals included (P197): a V2 entry with a fraction or an unsafe integer, and
// an entry of either version nested deeper than 64, have no canonical form in core, so the page computes no hash for
// them either, marks the entry as one it could not hash, and says why where the next link cannot be checked.
// The page's shared/jcs.js is compared with core's canonicalizeV2/V1 on the same values; real verification service
// in-process, bundles built by core; Debian's Chromium.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { computeBundleHashes } from '../../packages/core/src/bundle/index.ts';
import { canonicalizeV1, canonicalizeV2 } from '../../packages/core/src/canonical/index.ts';
import { sampleBundle } from '../../services/verification/src/test-support.ts';
import { ROOT } from './harness.ts';
import { openVerifyPage, useVerifyPage, verifyInPage } from './verify-page.ts';

type Json = Record<string, unknown>;

const setup = useVerifyPage();

/** `levels` containers, alternately objects and arrays, the outermost first: `levels` deep in core's count. */
function nested(levels: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { z: value, a: i };
  return value;
}

/** JSON texts where a canonicaliser that is not core's gives a hash core refuses, or refuses one core gives. */
const EDGE_TEXTS = [
  '0.5',
  '{"score":0.21}',
  '[1,[2,{"deep":1.5}]]',
  '1e-7',
  '1e21',
  '-0',
  String(2 ** 53 - 1),
  String(-(2 ** 53 - 1)),
  String(2 ** 53),
  String(-(2 ** 53)),
  '12345678901234567890',
  '{"b":1,"a":[true,null,"é 😀"],"\\ud83d\\ude00":1,"\\uffff":2}',
  JSON.stringify(nested(64)),
  JSON.stringify(nested(65)),
  JSON.stringify({ evidence: nested(63) }),
  JSON.stringify({ evidence: nested(64) }),
];

/** Core's answer for each text, in the form the page gives: `text …` or `refused …`. */
function coreAnswers(canonicalize: typeof canonicalizeV2): string[] {
  return EDGE_TEXTS.map((text) => {
    const result = canonicalize(JSON.parse(text));
    return result.ok ? `text ${result.value}` : `refused ${result.error.message}`;
  });
}

async function pageAnswers(page: Page, exportName: string): Promise<string[]> {
  // A string, so that the module is imported by the page itself (vitest rewrites import() in a function).
  return (await page.evaluate(`(async () => {
    const jcs = await import('/console/shared/jcs.js');
    return ${JSON.stringify(EDGE_TEXTS)}.map((text) => {
      try {
        return 'text ' + jcs[${JSON.stringify(exportName)}](JSON.parse(text));
      } catch (error) {
        return 'refused ' + error.message;
      }
    });
  })()`)) as string[];
}

describe("the page's canonical JSON is core's, refusals included (P197)", () => {
  it('gives the text core gives, and refuses with core’s message where core refuses (V2 and V1)', async () => {
    const { page, pageErrors } = await openVerifyPage(setup);
    const v2 = coreAnswers(canonicalizeV2);
    // The cases are what they claim: core refuses fractions, unsafe integers and 65 levels in V2.
    expect(v2.filter((a) => a.startsWith('refused')).length).toBe(10);
    expect(await pageAnswers(page, 'canonicalize')).toEqual(v2);
    const v1 = coreAnswers(canonicalizeV1);
    expect(v1.filter((a) => a.startsWith('refused')).length).toBe(2);
    expect(await pageAnswers(page, 'canonicalizeV1')).toEqual(v1);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The link a producer with a lenient canonicaliser (the page's before P197: sorted keys, JSON.stringify numbers, no
 * depth limit) would write after `entry`: it hashes what core refuses.
 */
function lenientLink(entry: unknown, v2: boolean): string {
  const text = (value: unknown): string => {
    if (Array.isArray(value)) return `[${value.map(text).join(',')}]`;
    if (value !== null && typeof value === 'object')
      return `{${Object.keys(value)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${text((value as Json)[k])}`)
        .join(',')}}`;
    return JSON.stringify(value);
  };
  const hex = sha256(text(entry));
  return v2 ? `sha256:${hex}` : hex;
}

/** A bundle built by core whose entry 1 then gets `extra` as evidence and entry 2 the lenient link to it. */
function withUnhashableEntry(version: '1.0' | '2.0', extra: unknown) {
  const signed = structuredClone(sampleBundle({ version, tier: 'standard', entries: 3 }).signed_bundle);
  const entries = (signed['bundle'] as { audit_entries: Json[] }).audit_entries;
  entries[1]!['evidence'] = { ...(entries[1]!['evidence'] as Json), extra };
  entries[2]!['prev_hash'] = lenientLink(entries[1], version === '2.0');
  return { signed, entries };
}

describe('the verify page marks an entry core cannot hash, and the link after it (P197)', () => {
  for (const [version, what, extra] of [
    ['2.0', 'a fraction', 0.5],
    ['2.0', 'an unsafe integer', 2 ** 53],
    ['2.0', '65 levels of nesting', nested(63)],
    ['1.0', '65 levels of nesting', nested(63)],
  ] as const) {
    it(`V${version}: ${what} in entry 1`, async () => {
      const { signed, entries } = withUnhashableEntry(version, extra);
      const refusal = (version === '2.0' ? canonicalizeV2 : canonicalizeV1)(entries[1]);
      expect(refusal.ok).toBe(false); // core has no hash for the entry
      const reason = refusal.ok ? '' : refusal.error.message;
      const { page, cspViolations, pageErrors } = await verifyInPage(setup, signed);
      expect(await page.textContent('#verdict')).toContain('✘ NOT VERIFIED');
      const unhashable = await page
        .locator('#timeline > li[data-unhashable="true"]')
        .evaluateAll((lis) => lis.map((li) => li.getAttribute('data-entry')));
      expect(unhashable).toEqual(['1']);
      const entryOne = page.locator('#timeline > li[data-entry="1"]');
      expect(await entryOne.locator('.unhashable-note').textContent()).toContain(reason);
      // The link after it is neither passed nor failed on a hash core refuses; the page says why.
      const entryTwo = page.locator('#timeline > li[data-entry="2"]');
      expect(await entryTwo.locator('.unchecked-link').textContent()).toContain(
        `could not hash entry #1, so it cannot check this prev_hash: ${reason}`,
      );
      expect(await entryTwo.getAttribute('data-service-break')).toBeNull();
      expect(await page.textContent('#timeline')).not.toContain('should be ?');
      expect(await page.locator('#timeline > li.broken').count()).toBe(0);
      // The bundle hash covers the entry too: core has none, nor does the page (nothing to look up in a log).
      expect(await page.locator('#bundle-hash').count()).toBe(0);
      expect(await page.textContent('#no-bundle-hash')).toContain('No bundle hash could be computed: $.');
      expect(await page.locator('#stated-hash').count()).toBe(0);
      expect(cspViolations).toEqual([]);
      expect(pageErrors).toEqual([]);
      await page.close();
    });
  }

  it('draws a valid bundle with a deeply nested entry with its hash and no mark (the control)', async () => {
    // 60 levels: within what core hashes as an entry (64) and inside the whole bundle (V2 puts an entry 4 deep).
    for (const version of ['2.0', '1.0'] as const) {
      const built = sampleBundle({
        version,
        tier: 'standard',
        entries: 3,
        hooks: {
          entry: (entry: Json, i: number) => {
            if (i === 1) entry['evidence'] = { ...(entry['evidence'] as Json), extra: nested(58) };
          },
        },
      });
      const entries = (built.signed_bundle['bundle'] as { audit_entries: Json[] }).audit_entries;
      expect((version === '2.0' ? canonicalizeV2 : canonicalizeV1)(entries[1]).ok).toBe(true);
      const { page, pageErrors } = await verifyInPage(setup, built.signed_bundle);
      expect(await page.textContent('#verdict'), version).toContain('✔ VERIFIED');
      expect(await page.locator('#timeline > li[data-unhashable]').count()).toBe(0);
      expect(await page.locator('#timeline > li.broken').count()).toBe(0);
      expect(await page.locator('.unchecked-link').count()).toBe(0);
      expect(await page.textContent('#bundle-hash')).toBe(built.bundleHash);
      expect(pageErrors).toEqual([]);
      await page.close();
    }
  });
});

/** Core's stored canonical vectors (packages/core/test-vectors/canonical-vectors.json), P219's among them. */
interface StoredVector {
  readonly name: string;
  readonly input_json: string;
  readonly canonical?: string;
  readonly error?: string;
}

describe("the page's canonical JSON gives every stored vector of core (P219)", () => {
  it('the same text, or a refusal with the same message, for each v2 and v1 vector', async () => {
    const file = JSON.parse(
      readFileSync(join(ROOT, 'packages/core/test-vectors/canonical-vectors.json'), 'utf8'),
    ) as { v2: StoredVector[]; v1: StoredVector[] };
    expect(file.v2.map((v) => v.name)).toContain('signed_bundle_entry_62_deep_rejected');
    const { page, pageErrors } = await openVerifyPage(setup);
    for (const [form, exportName] of [
      ['v2', 'canonicalize'],
      ['v1', 'canonicalizeV1'],
    ] as const) {
      const vectors = file[form];
      const answers = (await page.evaluate(`(async () => {
        const jcs = await import('/console/shared/jcs.js');
        return ${JSON.stringify(vectors.map((v) => v.input_json))}.map((text) => {
          try {
            return { canonical: jcs[${JSON.stringify(exportName)}](JSON.parse(text)) };
          } catch (error) {
            return { error: error.message };
          }
        });
      })()`)) as Array<{ canonical?: string; error?: string }>;
      expect(
        answers.map((answer, i) => ({ name: vectors[i]?.name, ...answer })),
        form,
      ).toEqual(
        vectors.map((v) => ({
          name: v.name,
          ...(v.canonical === undefined ? { error: v.error } : { canonical: v.canonical }),
        })),
      );
    }
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});

/**
 * A V2 bundle built by core whose entry 1 is `depth` deep, signed and chained over it. Past 61 the builder refuses
 * to hash the whole bundle after signing it (P219); the signed bundle is taken from its last hook, as a producer
 * without that refusal would send it.
 */
function entryDeep(depth: number): Json {
  let signed: Json | undefined;
  try {
    sampleBundle({
      version: '2.0',
      tier: 'standard',
      entries: 3,
      hooks: {
        entry: (entry: Json, i: number) => {
          if (i === 1) entry['evidence'] = { extra: arrays(depth - 2) };
        },
        signedBundle: (s: Json) => {
          signed = structuredClone(s);
        },
      },
    });
  } catch {
    // The builder's refusal: the bundle it signed is still the one under test.
  }
  if (signed === undefined) throw new Error('the builder signed nothing');
  return signed;
}

function arrays(levels: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe('a V2 bundle that has no bundle hash is not verified, on the page as in core (P219)', () => {
  it('an entry 62–64 deep hashes alone, but the whole bundle is 65+ deep: NOT VERIFIED, and the page says why', async () => {
    for (const depth of [62, 64]) {
      const signed = entryDeep(depth);
      const entries = (signed['bundle'] as { audit_entries: Json[] }).audit_entries;
      expect(canonicalizeV2(entries[1]).ok).toBe(true);
      const refusal = canonicalizeV2({ bundle: signed['bundle'], signature: signed['signature'] });
      const reason = refusal.ok ? '' : refusal.error.message;
      expect(reason).toMatch(/nesting depth exceeds 64$/);
      const { page, cspViolations, pageErrors } = await verifyInPage(setup, signed);
      // Before P219 the service verified it and the page showed ✔ VERIFIED beside "No bundle hash could be computed".
      expect(await page.textContent('#verdict'), `${depth}`).toContain('✘ NOT VERIFIED');
      expect(await page.textContent('#checks tr[data-check="schema"]')).toContain('fail');
      expect(await page.textContent('#failures')).toContain(`signed bundle has no bundle hash: ${reason}`);
      // The page's own reason is core's, word for word; every entry hashed and the chain holds.
      expect(await page.textContent('#no-bundle-hash')).toBe(`No bundle hash could be computed: ${reason}.`);
      expect(await page.locator('#bundle-hash').count()).toBe(0);
      expect(await page.locator('#timeline > li[data-unhashable]').count()).toBe(0);
      expect(await page.locator('#timeline > li.broken').count()).toBe(0);
      expect(cspViolations).toEqual([]);
      expect(pageErrors).toEqual([]);
      await page.close();
    }
  });

  it('an entry 61 deep (the whole bundle 64): verified, with the bundle hash core computes (the control)', async () => {
    const signed = entryDeep(61);
    const hashes = computeBundleHashes(signed);
    expect(hashes.ok).toBe(true);
    const { page, pageErrors } = await verifyInPage(setup, signed);
    expect(await page.textContent('#verdict')).toContain('✔ VERIFIED');
    expect(await page.textContent('#bundle-hash')).toBe(hashes.ok ? hashes.value.bundleHash : '');
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
