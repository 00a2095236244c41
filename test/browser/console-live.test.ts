// The revocation viewer's verdict is read out once (P197): the live region announces it when a list is drawn, and
// after "Forget…" focus goes to the verdict, which then sits outside every live region, so a screen reader does not
// read it twice (once as a status update, once as the focused element). Real revocation service in-process behind
// ./proxy.ts, lists signed with its key by core; Debian's Chromium; axe-core in light and dark mode.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRevocationList } from '../../packages/core/src/index.ts';
import { parseSecretKey } from '../../services/revocation/src/keys.ts';
import {
  ISSUER,
  JURISDICTION,
  startService as startRevocation,
} from '../../services/revocation/src/test-support.ts';
import { type Desktop, openDesktop, seriousAxeViolations, watchedPage } from './harness.ts';
import { type FrontProxy, type Rule, startProxy } from './proxy.ts';

/** The revocation service's list key, known to the test so it can sign a list with a higher number. */
const LIST_KEY_B64 = Buffer.alloc(32, 0x4c).toString('base64');

let desktop: Desktop;
let revocation: Awaited<ReturnType<typeof startRevocation>>;
let proxy: FrontProxy;

beforeAll(async () => {
  revocation = await startRevocation({ env: { REVOCATION_SIGNING_KEY: LIST_KEY_B64 } });
  proxy = await startProxy(revocation.url);
  desktop = await openDesktop();
});

afterAll(async () => {
  await desktop?.close();
  await proxy?.close();
  await revocation?.close();
});

const isList = (method: string, path: string) =>
  method === 'GET' && /^\/\.well-known\/[^/]*revocations\.json/.test(path);

/** Passes the list unchanged (the proxy sends it no-store, so each load asks the service). */
const passList: Rule = { matches: isList, rewrite: (body) => body };

/** List 1,000,000, signed by the issuer's key: remembered, it makes the service's own list a rollback. */
const higherList: Rule = {
  matches: isList,
  rewrite: () => {
    const signed = signRevocationList(
      {
        issuer: ISSUER,
        jurisdiction: JURISDICTION,
        updated_at: new Date().toISOString(),
        list_number: 1_000_000,
        next_update: new Date(Date.now() + 86_400_000).toISOString(),
        entries: [],
      } as Parameters<typeof signRevocationList>[0],
      parseSecretKey(LIST_KEY_B64, 'LIST_KEY_B64'),
    );
    if (!signed.ok) throw new Error(signed.error.message);
    return Buffer.from(JSON.stringify(signed.value));
  },
};

async function withRule<T>(rule: Rule, body: () => Promise<T>): Promise<T> {
  proxy.rules.push(rule);
  try {
    return await body();
  } finally {
    proxy.rules.splice(proxy.rules.indexOf(rule), 1);
  }
}

async function open(context: BrowserContext, rule: Rule): Promise<Page> {
  return withRule(rule, async () => {
    const { page } = await watchedPage(context);
    await page.goto(`${proxy.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    return page;
  });
}

/** The texts of the page's live regions that hold `words`: what a screen reader would announce with them. */
async function liveRegionsSaying(page: Page, words: string): Promise<string[]> {
  return (await page.evaluate(`[...document.querySelectorAll('[aria-live], [role="status"], [role="alert"]')]
    .map((node) => (node.textContent ?? '').replace(/\\s+/g, ' ').trim())
    .filter((text) => text.includes(${JSON.stringify(words)}))`)) as string[];
}

const inLiveRegion = (page: Page, selector: string) =>
  page
    .locator(selector)
    .evaluate((node) => node.closest('[aria-live], [role="status"], [role="alert"]') !== null);

describe('the revocation verdict is announced once (P197)', () => {
  it('a drawn list is announced by one live region; the verdict box itself is in none', async () => {
    const context = await desktop.browser.newContext();
    try {
      const page = await open(context, passList);
      expect(await page.getAttribute('#freshness-banner', 'data-state')).toBe('fresh');
      expect(await inLiveRegion(page, '#freshness-banner')).toBe(false);
      const verdict = (await page.textContent('#freshness-banner strong')) ?? '';
      expect(verdict).toBe('FRESH');
      expect(await liveRegionsSaying(page, verdict)).toHaveLength(1);
      await page.close();
    } finally {
      await context.close();
    }
  });

  it('after "Forget…", focus is on the verdict and no live region repeats it', async () => {
    const context = await desktop.browser.newContext();
    try {
      await (await open(context, higherList)).close();
      const page = await open(context, passList);
      expect(await page.getAttribute('#freshness-banner', 'data-state')).toBe('rollback');
      await page.focus('#forget-newest');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Shift+Tab');
      await withRule(passList, async () => {
        await page.keyboard.press('Enter'); // "Forget list 1000000"
        await page.waitForSelector('#freshness-banner[data-state="fresh"]');
      });
      await expect
        .poll(async () => String(await page.evaluate("document.activeElement?.id ?? ''")), { timeout: 5_000 })
        .toBe('freshness-banner');
      expect(await inLiveRegion(page, '#freshness-banner')).toBe(false);
      // Focus reads the verdict; a live region holding it too would read it a second time.
      expect(await liveRegionsSaying(page, 'FRESH')).toEqual([]);
      await page.close();
    } finally {
      await context.close();
    }
  });

  it('has no serious axe-core violation, after "Forget…" too, in light and dark mode', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await desktop.browser.newContext({
        colorScheme,
        viewport: { width: 1100, height: 900 },
      });
      try {
        await (await open(context, higherList)).close();
        const page = await open(context, passList);
        expect(await seriousAxeViolations(page), colorScheme).toEqual([]);
        await page.click('#forget-newest');
        await withRule(passList, async () => {
          await page.click('#forget-yes');
          await page.waitForSelector('#freshness-banner[data-state="fresh"]');
        });
        expect(await seriousAxeViolations(page), `${colorScheme}, after`).toEqual([]);
        await page.close();
      } finally {
        await context.close();
      }
    }
  });
});
