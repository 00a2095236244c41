// The revocation viewer's verdict is read out once (P197): the live region announces it when a list is drawn, and
// after "Forget…" focus goes to the verdict, which then sits outside every live region, so a screen reader does not
// read it twice (once as a status update, once as the focused element). Real revocation service in-process behind
// ./proxy.ts, lists signed with its key by core; Debian's Chromium; axe-core in light and dark mode.
// The focused verdict shows a focus ring (P218, WCAG 2.2 SC 2.4.7, 2.4.11, 2.4.13): measured in screenshot pixels.
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

/**
 * What focus changes on screen around `selector`: screenshots of the element and 8 px around it, focused and
 * blurred, compared pixel by pixel in a blank page. `changed` counts the pixels whose two colours differ by a
 * contrast ratio of at least 3:1 (WCAG 2.2 SC 2.4.13, the focused against the unfocused state); `required` is
 * the area of a 2 CSS px thick perimeter of the element, the minimum that SC asks of a focus indicator.
 */
async function focusChange(page: Page, selector: string): Promise<{ changed: number; required: number }> {
  const box = await page.locator(selector).boundingBox();
  if (!box) throw new Error(`${selector} is not drawn`);
  const clip = {
    x: Math.max(0, box.x - 8),
    y: Math.max(0, box.y - 8),
    width: box.width + 16,
    height: box.height + 16,
  };
  const focused = (await page.screenshot({ clip })).toString('base64');
  await page.evaluate('document.activeElement?.blur()');
  const blurred = (await page.screenshot({ clip })).toString('base64');
  const blank = await page.context().newPage();
  try {
    // A string, evaluated in the page (the tests are typed without the DOM library, as the other ones here).
    const changed = (await blank.evaluate(`(async () => {
      const pixels = async (b64) => {
        const bitmap = await createImageBitmap(await (await fetch('data:image/png;base64,' + b64)).blob());
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
        const context = canvas.getContext('2d');
        context.drawImage(bitmap, 0, 0);
        return context.getImageData(0, 0, bitmap.width, bitmap.height).data;
      };
      const channel = (v) => {
        const c = v / 255;
        return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      const luminance = (data, i) =>
        0.2126 * channel(data[i]) + 0.7152 * channel(data[i + 1]) + 0.0722 * channel(data[i + 2]);
      const on = await pixels(${JSON.stringify(focused)});
      const off = await pixels(${JSON.stringify(blurred)});
      let count = 0;
      for (let i = 0; i < on.length; i += 4) {
        const l1 = luminance(on, i);
        const l2 = luminance(off, i);
        if ((Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05) >= 3) count += 1;
      }
      return count;
    })()`)) as number;
    return { changed, required: 4 * (box.width + box.height) };
  } finally {
    await blank.close();
  }
}

describe('the focused revocation verdict shows a focus ring (P218)', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    for (const how of ['keyboard', 'mouse'] as const) {
      it(`${colorScheme} mode, "Forget…" answered with the ${how}: a 3:1 ring at least 2 px around, in view`, async () => {
        const context = await desktop.browser.newContext({
          colorScheme,
          viewport: { width: 1100, height: 900 },
          deviceScaleFactor: 1,
        });
        try {
          await (await open(context, higherList)).close();
          const page = await open(context, passList);
          await withRule(passList, async () => {
            if (how === 'keyboard') {
              await page.focus('#forget-newest');
              await page.keyboard.press('Enter');
              await page.keyboard.press('Shift+Tab');
              await page.keyboard.press('Enter');
            } else {
              await page.click('#forget-newest');
              await page.click('#forget-yes');
            }
            await page.waitForSelector('#freshness-banner[data-state="fresh"]');
          });
          await expect
            .poll(async () => String(await page.evaluate("document.activeElement?.id ?? ''")), {
              timeout: 5_000,
            })
            .toBe('freshness-banner');
          // SC 2.4.11: the focused verdict is not hidden, not even in part, by anything drawn over it.
          const inView = await page.evaluate(`(() => {
            const node = document.querySelector('#freshness-banner');
            const r = node.getBoundingClientRect();
            const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return r.top >= 0 && r.bottom <= innerHeight && (top === node || node.contains(top));
          })()`);
          expect(inView).toBe(true);
          const { changed, required } = await focusChange(page, '#freshness-banner');
          expect(changed).toBeGreaterThanOrEqual(required);
          await page.close();
        } finally {
          await context.close();
        }
      });
    }
  }
});
