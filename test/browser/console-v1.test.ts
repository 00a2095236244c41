// The verify page and V1 bundles (P191): the timeline hashes V1 audit entries with V1's canonical form (PROTOCOL §1.2,
// json-stable-stringify rules, as core's canonicalizeV1), and marks the chain break the service reports in V1's words
// ("prev_hash chain (entry i)"). Real verification service in-process, bundles built by core; Debian's Chromium.
import { describe, expect, it } from 'vitest';
import { sampleBundle } from '../../services/verification/src/test-support.ts';
import { useVerifyPage, verifyInPage } from './verify-page.ts';

type Json = Record<string, unknown>;

const setup = useVerifyPage();

/**
 * Evidence members whose canonical text is where a canonicaliser can go wrong: floats and number forms
 * (1e21 → 1e+21, -0 → 0, 1e-7), keys in UTF-16 order (astral before U+FFFF, upper before lower case,
 * nested), non-ASCII and escaped characters, U+2028/2029 (raw in JSON.stringify), `<>&` (escaped by Go).
 */
function edgeEvidence(i: number): Json {
  return {
    tool: 'sample_tool',
    result_ref: `result-${i + 1}`,
    score: 0.21,
    tiny: 1e-7,
    huge: 1e21,
    negative_zero: -0,
    unsafe: 2 ** 53 + 2,
    text: `é 日本 😀 \u2028\u2029 <>& "quoted" back\\slash \b\f\n\r\t \u0000\u001f\u007f /`,
    nested: { z: [{ b: 1, a: [null, true, { y: 2, x: 1 }] }], A: 'upper', a: 'lower', é: 1, e: 2 },
    '\u{1F600}': 'astral key',
    '\uFFFF': 'BMP key',
    '': 'empty key',
  };
}

function edgeBundle(entries = 4) {
  return sampleBundle({
    version: '1.0',
    tier: 'standard',
    entries,
    hooks: {
      entry: (entry: Json, i: number) => {
        entry['evidence'] = edgeEvidence(i);
      },
    },
  });
}

describe('the verify page hashes V1 audit entries as core does (P191)', () => {
  it('draws a valid V1 bundle with edge-case entries with no chain break and its bundle hash', async () => {
    const built = edgeBundle();
    const { page, cspViolations, pageErrors } = await verifyInPage(setup, built.signed_bundle);
    expect(await page.textContent('#verdict')).toContain('✔ VERIFIED');
    expect(await page.locator('#timeline > li').count()).toBe(4);
    expect(await page.locator('#timeline > li.broken').count()).toBe(0);
    expect(await page.textContent('#bundle-hash')).toBe(built.bundleHash);
    expect(await page.locator('#stated-hash').count()).toBe(0);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('still shows the break of a tampered V1 bundle, at the entry after the changed one', async () => {
    const tampered = structuredClone(edgeBundle().signed_bundle);
    const entries = (tampered['bundle'] as { audit_entries: Json[] }).audit_entries;
    // A change no UTF-16 key order or number form hides: the nested array's order.
    const nested = (entries[1]!['evidence'] as { nested: { z: unknown[] } }).nested;
    nested.z = [...nested.z, 0];
    const { page, cspViolations, pageErrors } = await verifyInPage(setup, tampered);
    expect(await page.textContent('#verdict')).toContain('✘ NOT VERIFIED');
    const broken = await page
      .locator('#timeline > li.broken')
      .evaluateAll((lis) => lis.map((li) => li.getAttribute('data-entry')));
    expect(broken).toEqual(['2']);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});

describe('the verify page marks the chain break the service reports, in V1’s words too (P191)', () => {
  // Entry 2's link rewritten also changes entry 2's own hash, so entry 3's links break too: V1 names only the first
  // break ("1 more prev_hash chain breaks"), V2 names the first of each chain (prev_hash_secondary's is entry 3).
  for (const [version, signed, link, words, named] of [
    ['1.0', () => edgeBundle().signed_bundle, 'f'.repeat(64), 'prev_hash chain (entry 2)', ['2']],
    [
      '2.0',
      () => sampleBundle({ tier: 'standard', entries: 4 }).signed_bundle,
      `sha256:${'f'.repeat(64)}`,
      'prev_hash chain break at entry[2]',
      ['2', '3'],
    ],
  ] as const) {
    it(`names the service’s finding at the entry its V${version} message points to`, async () => {
      const tampered = structuredClone(signed());
      const entries = (tampered['bundle'] as { audit_entries: Json[] }).audit_entries;
      entries[2]!['prev_hash'] = link;
      const { page, cspViolations, pageErrors } = await verifyInPage(setup, tampered);
      expect(await page.textContent('#verdict')).toContain('✘ NOT VERIFIED');
      expect(await page.textContent('#failures')).toContain(words);
      const entry = page.locator('#timeline > li[data-entry="2"]');
      expect(await entry.getAttribute('class')).toContain('broken');
      expect(await entry.getAttribute('data-service-break')).toBe('true');
      expect(await entry.locator('.service-break').textContent()).toContain(words);
      // Only the entries the service named carry its findings.
      const marked = await page
        .locator('#timeline > li[data-service-break]')
        .evaluateAll((lis) => lis.map((li) => li.getAttribute('data-entry')));
      expect(marked).toEqual(named);
      expect(cspViolations).toEqual([]);
      expect(pageErrors).toEqual([]);
      await page.close();
    });
  }
});
