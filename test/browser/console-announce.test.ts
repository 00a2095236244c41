// The verify page's verdict is announced once, politely, and nothing else of the result is (P218): the result
// area is no live region, the verdict box sits in none, and the one polite status line carries the verdict's words.
// Checked in the DOM and in Chromium's own accessibility tree (CDP); real verification service, Debian's Chromium.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, sampleBundle, startApp } from '../../services/verification/src/test-support.ts';
import { type Desktop, openDesktop, seriousAxeViolations, watchedPage } from './harness.ts';

type Json = Record<string, unknown>;

let desktop: Desktop;
let verification: RunningApp;
let valid: Json;

beforeAll(async () => {
  verification = await startApp();
  valid = sampleBundle({ tier: 'standard', entries: 3 }).signed_bundle;
  desktop = await openDesktop();
});

afterAll(async () => {
  await desktop?.close();
  await verification?.close();
});

const LIVE = '[aria-live], [role="status"], [role="alert"], [role="log"], [role="marquee"], [role="timer"]';

/** Every live region of the page: its politeness and its text, as a screen reader would speak it. */
async function liveRegions(page: Page): Promise<Array<{ id: string; live: string; text: string }>> {
  return (await page.evaluate(`[...document.querySelectorAll(${JSON.stringify(LIVE)})].map((node) => ({
    id: node.id,
    live: node.getAttribute('aria-live') ?? (node.getAttribute('role') === 'alert' ? 'assertive' : 'polite'),
    text: (node.textContent ?? '').replace(/\\s+/g, ' ').trim(),
  }))`)) as Array<{ id: string; live: string; text: string }>;
}

/**
 * Chromium's accessibility tree: the nodes it reports as live-region roots (those carrying the `live` property),
 * with their politeness and the text below them. What assistive technology is told, not what the markup intends.
 */
async function axLiveRoots(page: Page): Promise<Array<{ live: string; text: string }>> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
      nodes: Array<{
        nodeId: string;
        backendDOMNodeId?: number;
        properties?: Array<{ name: string; value: { value?: unknown } }>;
      }>;
    };
    const roots: Array<{ live: string; text: string }> = [];
    for (const node of nodes) {
      const props = new Map((node.properties ?? []).map((p) => [p.name, p.value]));
      const root = node.backendDOMNodeId;
      const live = props.get('live')?.value;
      if (root === undefined || typeof live !== 'string' || live === 'off') continue;
      const { object } = (await cdp.send('DOM.resolveNode', { backendNodeId: root })) as {
        object: { objectId: string };
      };
      const { result } = (await cdp.send('Runtime.callFunctionOn', {
        objectId: object.objectId,
        functionDeclaration: 'function () { return (this.textContent ?? "").replace(/\\s+/g, " ").trim(); }',
        returnByValue: true,
      })) as { result: { value: string } };
      roots.push({ live, text: result.value });
    }
    return roots;
  } finally {
    await cdp.detach();
  }
}

async function verifyInPage(signed: unknown): Promise<Page> {
  const { page } = await watchedPage(desktop.context);
  await page.goto(`${verification.url}/`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.fill('#bundle-text', JSON.stringify(signed));
  await page.click('#verify-button');
  await page.waitForSelector('#timeline');
  return page;
}

describe('the verify page announces the verdict once, politely (P218)', () => {
  for (const [what, signed, words] of [
    ['a valid bundle', () => valid, '✔ VERIFIED'],
    [
      'a tampered bundle',
      () => {
        const tampered = structuredClone(valid);
        ((tampered['bundle'] as { audit_entries: Json[] }).audit_entries[1] as Json)['outcome'] = 'changed';
        return tampered;
      },
      '✘ NOT VERIFIED',
    ],
  ] as const) {
    it(`${what}: one polite live region says the verdict; the result area and the verdict box are in none`, async () => {
      const page = await verifyInPage(signed());
      expect(await page.textContent('#verdict')).toContain(words);
      // The drawn result (checks, errors, signers, timeline) is read by moving through it, not spoken as news.
      const inLive = (selector: string) =>
        page.locator(selector).evaluate((node, live) => node.closest(live) !== null, LIVE);
      expect(await inLive('#result')).toBe(false);
      expect(await inLive('#verdict')).toBe(false);
      expect(await inLive('#checks')).toBe(false);
      expect(await inLive('#timeline')).toBe(false);
      const regions = await liveRegions(page);
      // No live region inside another: each change would otherwise be spoken by both.
      expect(
        await page.evaluate(
          `[...document.querySelectorAll(${JSON.stringify(LIVE)})].filter((n) => n.parentElement?.closest(${JSON.stringify(LIVE)})).length`,
        ),
      ).toBe(0);
      const saying = regions.filter((r) => r.text.includes(words.slice(2)));
      expect(saying).toHaveLength(1);
      expect(saying[0]?.live).toBe('polite');
      // The verdict and its version and tier; not the sections drawn below it.
      expect(saying[0]?.text).toContain(words);
      expect(saying[0]?.text).toContain('version 2.0');
      expect(saying[0]?.text).not.toMatch(/Checks|Audit trail|Signers/);
      // Chromium's tree agrees: exactly one live root holds the verdict, polite.
      const roots = (await axLiveRoots(page)).filter((r) => r.text.includes(words.slice(2)));
      expect(roots).toEqual([{ live: 'polite', text: saying[0]?.text }]);
      await page.close();
    });
  }

  it('has no serious axe-core violation with a verdict drawn', async () => {
    const page = await verifyInPage(valid);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.close();
  });
});
