// What the console draws from a bundle or a log is checked before it is drawn or used (P186): hash fields on the verify
// page, the index a proof is asked for, the tree size the log explorer pages with, and the rollback memory's
// "Forget…" control for keyboard and screen-reader users. Real verification, log and revocation services
// in-process, the log and the revocation service behind ./proxy.ts; Debian's Chromium.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRevocationList } from '../../packages/core/src/index.ts';
import { parseSecretKey } from '../../services/revocation/src/keys.ts';
import {
  ISSUER,
  JURISDICTION,
  startService as startRevocation,
} from '../../services/revocation/src/test-support.ts';
import { buildTestLog } from '../../services/transparency-log/src/test-support.ts';
import { type RunningApp, sampleBundle, startApp } from '../../services/verification/src/test-support.ts';
import {
  appendToLog,
  type Desktop,
  freshContext,
  openDesktop,
  seriousAxeViolations,
  watchedPage,
} from './harness.ts';
import { type FrontProxy, type Rule, startProxy } from './proxy.ts';

type Json = Record<string, unknown>;

const LOG_TOKEN = 'console-checked-log-operator-token-01';
/** The revocation service's list key, known to the test so it can sign lists the service never issued. */
const LIST_KEY_B64 = Buffer.alloc(32, 0x4b).toString('base64');
/** How long a page is given to draw or ask for something it should not. */
const SETTLE_MS = 1500;

let desktop: Desktop;
let log: Awaited<ReturnType<typeof buildTestLog>>;
let logDir: string;
let logProxy: FrontProxy;
let verification: RunningApp;
let revocation: Awaited<ReturnType<typeof startRevocation>>;
let revocationProxy: FrontProxy;
let logged: { signed_bundle: Json; bundleHash: string };
/** The size of the signed checkpoint once the test entries are covered. */
let signedSize: number;

beforeAll(async () => {
  logDir = await mkdtemp(join(tmpdir(), 'proto-console-checked-'));
  log = await buildTestLog(logDir, { CHECKPOINT_INTERVAL_MS: '50', OPERATOR_TOKEN: LOG_TOKEN });
  const logUrl = await log.listen({ port: 0, host: '127.0.0.1' });
  logProxy = await startProxy(logUrl);
  verification = await startApp({ CONSOLE_LOG_URL: logProxy.url });
  revocation = await startRevocation({ env: { REVOCATION_SIGNING_KEY: LIST_KEY_B64 } });
  revocationProxy = await startProxy(revocation.url);
  logged = sampleBundle({ tier: 'standard', entries: 2 });
  expect((await appendToLog(logUrl, LOG_TOKEN, logged.bundleHash)).status).toBe(201);
  expect((await appendToLog(logUrl, LOG_TOKEN, `sha256:${'cd'.repeat(32)}`)).status).toBe(201);
  for (let waited = 0; ; waited += 50) {
    const signed = (await (await fetch(`${logUrl}/root/signed`)).json()) as { tree_size: number };
    if (signed.tree_size >= 2) {
      signedSize = signed.tree_size;
      break;
    }
    if (waited > 10_000) throw new Error('no checkpoint covers the test entries');
    await new Promise((r) => setTimeout(r, 50));
  }
  desktop = await openDesktop();
});

afterAll(async () => {
  await desktop?.close();
  await verification?.close();
  await logProxy?.close();
  await log?.close();
  await revocationProxy?.close();
  await revocation?.close();
  if (logDir) await rm(logDir, { recursive: true, force: true });
});

/** Adds a rule for the length of a test. */
async function withRule<T>(proxy: FrontProxy, rule: Rule, body: () => Promise<T>): Promise<T> {
  proxy.rules.push(rule);
  try {
    return await body();
  } finally {
    proxy.rules.splice(proxy.rules.indexOf(rule), 1);
  }
}

/** `hash` with its first hex a, c or e written in the Cyrillic letter that looks the same. */
function lookalike(hash: string): string {
  const swapped = hash.replace(
    /(?<=:.*)[ace]|^[ace]/,
    (c) => ({ a: '\u0430', c: '\u0441', e: '\u0435' })[c]!,
  );
  expect(swapped).not.toBe(hash);
  return swapped;
}

/** How the page writes the first non-ASCII character of `text` out: ⟨U+0430⟩. */
function codePointShown(text: string): string {
  const c = [...text].find((ch) => ch.codePointAt(0)! > 0x7e)!;
  return `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

async function verifyInPage(signed: unknown) {
  const watched = await watchedPage(desktop.context);
  await watched.page.goto(`${verification.url}/`);
  await watched.page.waitForSelector('body[data-ready="true"]');
  await watched.page.fill('#bundle-text', JSON.stringify(signed));
  await watched.page.click('#verify-button');
  await watched.page.waitForSelector('#timeline');
  await watched.page.waitForSelector('#log-inclusion[data-state]');
  return watched;
}

describe('the verify page marks hash fields that are not hashes (P186)', () => {
  it('draws a valid V2 and a valid V1 bundle with no mark and no chain break', async () => {
    for (const sample of [
      sampleBundle({ tier: 'elevated', entries: 4 }),
      sampleBundle({ version: '1.0', tier: 'standard', entries: 3 }),
    ]) {
      const { page, cspViolations, pageErrors } = await verifyInPage(sample.signed_bundle);
      expect(await page.textContent('#verdict')).toContain('✔ VERIFIED');
      expect(await page.locator('#result .malformed').count()).toBe(0);
      expect(await page.locator('#timeline > li.broken').count()).toBe(0);
      // The chain values are drawn (shortened) as the bundle states them.
      const entries = (sample.signed_bundle['bundle'] as { audit_entries: Json[] }).audit_entries;
      const second = String(entries[1]!['prev_hash']);
      expect(await page.textContent('#timeline > li[data-entry="1"]')).toContain(second.slice(0, 12));
      expect(cspViolations).toEqual([]);
      expect(pageErrors).toEqual([]);
      await page.close();
    }
  });

  it('marks look-alike, wrong-case and wrong-length chain and intent hashes of a V2 bundle', async () => {
    const hostile = structuredClone(sampleBundle({ tier: 'standard', entries: 3 }).signed_bundle);
    const entries = (hostile['bundle'] as { audit_entries: Json[] }).audit_entries;
    const realIntent = String(entries[1]!['intent_hash']);
    entries[0]!['prev_hash'] = 'G\u0415NESIS'; // a Cyrillic Е
    entries[1]!['prev_hash'] = `sha256:${String(entries[1]!['prev_hash']).slice(7).toUpperCase()}`;
    entries[1]!['prev_hash_secondary'] = String(entries[1]!['prev_hash_secondary']).slice(0, -1);
    const forgedIntent = lookalike(realIntent);
    entries[1]!['intent_hash'] = forgedIntent;
    entries[2]!['prev_hash_secondary'] = `sha3-256:${'f'.repeat(100_000)}`;
    const { page, cspViolations, pageErrors } = await verifyInPage(hostile);
    const entry = (i: number) => page.locator(`#timeline > li[data-entry="${i}"]`);
    expect(await entry(0).locator('.malformed').count()).toBe(1);
    expect(await entry(0).textContent()).toContain('⟨U+0415⟩');
    expect(await entry(1).locator('.malformed').count()).toBe(3);
    expect(await entry(1).textContent()).toContain(codePointShown(forgedIntent));
    expect(await entry(2).locator('.malformed').count()).toBe(1);
    expect((await entry(2).textContent())?.length).toBeLessThan(2_000);
    // Entry 2's prev_hash is a well-formed hash (of an entry that was changed): a break, not a malformed value.
    expect(await entry(2).locator('dd .malformed').first().textContent()).toContain('sha3-256:');
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('marks a V1 bundle’s stated bundle_hash in look-alike letters and an intent hash in the V2 form', async () => {
    const v1 = structuredClone(sampleBundle({ version: '1.0', tier: 'standard', entries: 2 }).signed_bundle);
    const forgedHash = lookalike(logged.bundleHash);
    (v1['signature'] as Json)['bundle_hash'] = forgedHash;
    const entries = (v1['bundle'] as { audit_entries: Json[] }).audit_entries;
    entries[1]!['intent_hash'] = `sha256:${String(entries[1]!['intent_hash'])}`;
    const { page, cspViolations, pageErrors } = await verifyInPage(v1);
    expect(await page.locator('#stated-hash .malformed').count()).toBe(1);
    expect(await page.textContent('#stated-hash')).toContain(codePointShown(forgedHash));
    expect(await page.locator('#timeline > li[data-entry="0"] .malformed').count()).toBe(0);
    expect(await page.locator('#timeline > li[data-entry="1"] .malformed').count()).toBe(1);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});

describe('proveEntry checks the index itself (P186)', () => {
  it('asks the log for no proof of an index that is not one, or not under the tree size', async () => {
    const { page, pageErrors } = await watchedPage(await freshContext(desktop));
    await page.goto(`${logProxy.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    const before = logProxy.passed.length;
    const indexes = [-1, 0.5, '0/../../x', '1', 1e21, { toString: 1 }, signedSize, signedSize + 1, 0];
    // A string, so that the module is imported by the page itself (vitest rewrites import() in a function).
    const outcomes = (await page.evaluate(`(async () => {
      const inclusion = await import('/console/shared/inclusion.js');
      const { checkpoint } = await inclusion.signedCheckpoint('');
      const results = [];
      for (const index of ${JSON.stringify(indexes)}) {
        try {
          const proof = await inclusion.proveEntry('', index, ${JSON.stringify(logged.bundleHash)}, checkpoint);
          results.push('ok ' + proof.ok);
        } catch (error) {
          results.push('refused ' + error.message);
        }
      }
      return results;
    })()`)) as string[];
    // Only the last, index 0, reaches the log (a path index would climb out of /proof/ to another route).
    const asked = logProxy.passed.slice(before).filter((p) => p.path !== '/root/signed');
    expect(asked.map((p) => p.path)).toEqual([`/proof/0?tree_size=${signedSize}`]);
    expect(outcomes.slice(0, -1).every((o) => o.startsWith('refused'))).toBe(true);
    expect(outcomes.at(-1)).toBe('ok true');
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});

describe('the log explorer pages only within its verified signed checkpoint (P186)', () => {
  const isRoot = (method: string, path: string) => method === 'GET' && path === '/root';
  for (const [what, size] of [
    ['far beyond it', Number.MAX_SAFE_INTEGER],
    ['below it', 0],
  ] as const) {
    it(`lists the signed entries and says so when /root's tree size is ${what}`, async () => {
      const rule: Rule = {
        matches: isRoot,
        rewrite: (body) =>
          Buffer.from(JSON.stringify({ ...(JSON.parse(body.toString('utf8')) as Json), tree_size: size })),
      };
      await withRule(logProxy, rule, async () => {
        const before = logProxy.passed.length;
        const { page, cspViolations, pageErrors } = await watchedPage(await freshContext(desktop));
        await page.goto(`${logProxy.url}/`);
        await page.waitForSelector('body[data-ready="true"]');
        await page.waitForTimeout(SETTLE_MS);
        const asked = logProxy.passed.slice(before).filter((p) => p.path.startsWith('/entries'));
        expect(asked.map((p) => p.path)).toEqual([`/entries?start=0&end=${signedSize}`]);
        expect(await page.locator('#entries tbody tr[data-index]').count()).toBe(signedSize);
        const note = (await page.textContent('#entries-note')) ?? '';
        expect(note).toContain(String(size));
        expect(note).toContain(`signed checkpoint covers ${signedSize}`);
        expect(await page.textContent('#page-status')).toContain(`of ${signedSize}`);
        expect(await page.locator('#newer').isDisabled()).toBe(true);
        expect(cspViolations).toEqual([]);
        expect(pageErrors).toEqual([]);
        await page.close();
      });
    });
  }

  it('lists nothing when the signed checkpoint does not verify, whatever /root says', async () => {
    const rule: Rule = {
      matches: (method, path) => method === 'GET' && path === '/root/signed',
      rewrite: (body) => {
        const signed = JSON.parse(body.toString('utf8')) as { checkpoint: string };
        signed.checkpoint = signed.checkpoint.replace(/\n(\d+)\n/, (_m, n: string) => `\n${Number(n) + 5}\n`);
        return Buffer.from(JSON.stringify(signed));
      },
    };
    await withRule(logProxy, rule, async () => {
      const before = logProxy.passed.length;
      const { page, pageErrors } = await watchedPage(await freshContext(desktop));
      await page.goto(`${logProxy.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      await page.waitForTimeout(SETTLE_MS);
      expect(await page.textContent('#checkpoint-signature')).toContain('does not verify');
      const asked = logProxy.passed.slice(before).filter((p) => p.path.startsWith('/entries'));
      expect(asked).toEqual([]);
      expect(await page.locator('#entries tbody tr[data-index]').count()).toBe(0);
      expect(await page.textContent('#entries tbody')).toContain('no verified signed checkpoint');
      expect(pageErrors).toEqual([]);
      await page.close();
    });
  });

  it('still lists and proves the entries when /root and the checkpoint agree, with no note', async () => {
    const { page, cspViolations, pageErrors } = await watchedPage(await freshContext(desktop));
    await page.goto(`${logProxy.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator('#entries tbody tr[data-index]').count()).toBe(signedSize);
    expect(await page.locator('#entries-note').isVisible()).toBe(false);
    await page.click('#entries tr[data-index="0"] button');
    await page.waitForSelector('#proof-result');
    expect(await page.getAttribute('#proof-result', 'data-ok')).toBe('true');
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});

const isList = (method: string, path: string) =>
  method === 'GET' && /^\/\.well-known\/[^/]*revocations\.json/.test(path);

/** A list the issuer's own key signed, as the service would, with the fields given. */
function signedByIssuer(fields: Json): string {
  const signed = signRevocationList(
    {
      issuer: ISSUER,
      jurisdiction: JURISDICTION,
      updated_at: new Date().toISOString(),
      list_number: 1,
      next_update: new Date(Date.now() + 86_400_000).toISOString(),
      entries: [],
      ...fields,
    } as Parameters<typeof signRevocationList>[0],
    parseSecretKey(LIST_KEY_B64, 'LIST_KEY_B64'),
  );
  if (!signed.ok) throw new Error(signed.error.message);
  return JSON.stringify(signed.value);
}

/** Passes the list unchanged, as no-store (the service's max-age would let the browser skip the proxy). */
const passList: Rule = { matches: isList, rewrite: (body) => body };

async function openRevocation(context: BrowserContext, rule: Rule = passList): Promise<Page> {
  return withRule(revocationProxy, rule, async () => {
    const { page } = await watchedPage(context);
    await page.goto(`${revocationProxy.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    return page;
  });
}

/** Remembers list 1,000,000 signed by the issuer's key, then opens the page on the service's (lower) list. */
async function rolledBack(context: BrowserContext): Promise<Page> {
  const before = await openRevocation(context, {
    matches: isList,
    rewrite: () => Buffer.from(signedByIssuer({ list_number: 1_000_000 })),
  });
  expect(await before.getAttribute('#freshness-banner', 'data-state')).toBe('fresh');
  await before.close();
  const page = await openRevocation(context);
  expect(await page.getAttribute('#freshness-banner', 'data-state')).toBe('rollback');
  return page;
}

const activeId = async (page: Page) => String(await page.evaluate("document.activeElement?.id ?? ''"));

describe('the "Forget…" control works for keyboard and screen-reader users (P186)', () => {
  it('is outside the live region, moves focus into the question and back, and to the verdict after', async () => {
    const context = await desktop.browser.newContext();
    try {
      const page = await rolledBack(context);
      // Neither the control nor its question is read out as a status update each time it changes.
      const inLiveRegion = (selector: string) =>
        page
          .locator(selector)
          .evaluate((node) => node.closest('[aria-live], [role="status"], [role="alert"]') !== null);
      expect(await inLiveRegion('#forget-newest')).toBe(false);
      expect(await inLiveRegion('#forget-confirm')).toBe(false);
      await page.focus('#forget-newest');
      await page.keyboard.press('Enter');
      expect(await page.locator('#forget-confirm').isVisible()).toBe(true);
      // Focus lands on the answer that changes nothing, which carries the question as its description.
      expect(await activeId(page)).toBe('forget-cancel');
      const described = await page.getAttribute('#forget-cancel', 'aria-describedby');
      expect(described).toBeTruthy();
      expect(await page.textContent(`#${described}`)).toContain('1000000');
      await page.keyboard.press('Escape');
      expect(await page.locator('#forget-confirm').isVisible()).toBe(false);
      expect(await activeId(page)).toBe('forget-newest');
      expect(await page.getAttribute('#forget-newest', 'aria-expanded')).toBe('false');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Enter'); // Cancel, focused
      expect(await page.locator('#forget-confirm').isVisible()).toBe(false);
      expect(await activeId(page)).toBe('forget-newest');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Shift+Tab');
      expect(await activeId(page)).toBe('forget-yes');
      await withRule(revocationProxy, passList, async () => {
        await page.keyboard.press('Enter');
        await page.waitForSelector('#freshness-banner[data-state="fresh"]');
      });
      // Focus is not lost with the removed control: it is on the new verdict, which a screen reader reads.
      for (const started = Date.now(); (await activeId(page)) !== 'freshness-banner'; ) {
        if (Date.now() - started > 5_000) break;
        await page.waitForTimeout(100);
      }
      expect(await activeId(page)).toBe('freshness-banner');
      expect(await page.locator('#forget-newest').count()).toBe(0);
      await page.close();
    } finally {
      await context.close();
    }
  });

  it('has no serious axe-core violation with the question open, in light and dark mode', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await desktop.browser.newContext({
        colorScheme,
        viewport: { width: 1100, height: 900 },
      });
      try {
        const page = await rolledBack(context);
        await page.click('#forget-newest');
        expect(await page.locator('#forget-confirm').isVisible()).toBe(true);
        expect(await seriousAxeViolations(page), colorScheme).toEqual([]);
        await page.close();
      } finally {
        await context.close();
      }
    }
  });
});
