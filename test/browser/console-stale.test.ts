// What the console shows must belong to what is on the page (P163, P164). Real verification, log and revocation
// services in-process, each behind a local proxy (./proxy.ts) that can hold an answer back or alter it in
// transit; Debian's Chromium drives the pages as a person would.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revoke, startService as startRevocation } from '../../services/revocation/src/test-support.ts';
import { buildTestLog } from '../../services/transparency-log/src/test-support.ts';
import { type RunningApp, sampleBundle, startApp } from '../../services/verification/src/test-support.ts';
import { appendToLog, type Desktop, openDesktop, watchedPage } from './harness.ts';
import { type FrontProxy, type Passed, type Rule, startProxy } from './proxy.ts';

type Json = Record<string, unknown>;

const LOG_TOKEN = 'console-stale-log-operator-token-0001';
/** How long a page is given to draw something it should not, after the answer it would draw has arrived. */
const SETTLE_MS = 1500;
/** How long a held request is given to be aborted by the page before its answer is let go. */
const ABORT_WAIT_MS = 3000;

let desktop: Desktop;
let log: Awaited<ReturnType<typeof buildTestLog>>;
let logDir: string;
let logProxy: FrontProxy;
let verification: RunningApp;
let verifyProxy: FrontProxy;
let revocation: Awaited<ReturnType<typeof startRevocation>>;
let revocationProxy: FrontProxy;
let valid: Json;
let validHash: string;
let tampered: Json;

beforeAll(async () => {
  logDir = await mkdtemp(join(tmpdir(), 'proto-console-stale-'));
  log = await buildTestLog(logDir, { CHECKPOINT_INTERVAL_MS: '50', OPERATOR_TOKEN: LOG_TOKEN });
  const logUrl = await log.listen({ port: 0, host: '127.0.0.1' });
  logProxy = await startProxy(logUrl);
  // The page looks bundles up in the log through the proxy, so a test can hold a look-up back.
  verification = await startApp({ CONSOLE_LOG_URL: logProxy.url });
  verifyProxy = await startProxy(verification.url);
  revocation = await startRevocation();
  revocationProxy = await startProxy(revocation.url);
  expect((await revoke(revocation, 'agent-console-stale-revoked', 'key compromise')).status).toBe(201);

  const sample = sampleBundle({ tier: 'standard', entries: 4 });
  valid = sample.signed_bundle;
  validHash = sample.bundleHash;
  expect((await appendToLog(logUrl, LOG_TOKEN, validHash)).status).toBe(201);
  for (let waited = 0; ; waited += 50) {
    const signed = (await (await fetch(`${logUrl}/root/signed`)).json()) as { tree_size: number };
    if (signed.tree_size >= 1) break;
    if (waited > 10_000) throw new Error('no checkpoint covers the logged bundle');
    await new Promise((r) => setTimeout(r, 50));
  }
  tampered = structuredClone(valid);
  (tampered['bundle'] as { audit_entries: Json[] }).audit_entries[1]!['outcome'] = 'something_else';
  desktop = await openDesktop();
});

afterAll(async () => {
  await desktop?.close();
  await verifyProxy?.close();
  await verification?.close();
  await logProxy?.close();
  await log?.close();
  await revocationProxy?.close();
  await revocation?.close();
  if (logDir) await rm(logDir, { recursive: true, force: true });
});

/** A promise the test settles by hand: an answer held until the test lets it go. */
function gate(): { promise: Promise<void>; open(): void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/**
 * Waits until the page has abandoned a held request, or long enough that it plainly will not: the page aborts
 * in its own time (the cancellation crosses Chromium's network process), and a gate opened at once would
 * finish the answer first and hide the abort.
 */
async function abortedOrLater(request: Passed): Promise<void> {
  await Promise.race([request.done, new Promise((r) => setTimeout(r, ABORT_WAIT_MS))]);
}

/** Adds a rule for the length of a test. */
async function withRule<T>(proxy: FrontProxy, rule: Rule, body: () => Promise<T>): Promise<T> {
  proxy.rules.push(rule);
  try {
    return await body();
  } finally {
    proxy.rules.splice(proxy.rules.indexOf(rule), 1);
  }
}

const isVerify = (method: string, path: string) => method === 'POST' && path === '/verify';
const isLookup = (method: string, path: string) => method === 'GET' && path.startsWith('/lookup');

async function openVerifyPage() {
  const watched = await watchedPage(desktop.context);
  await watched.page.goto(`${verifyProxy.url}/`);
  await watched.page.waitForSelector('body[data-ready="true"]');
  return watched;
}

/** Everything the result area and status line show, once the page has had time to draw what it was going to. */
async function shownAfterSettling(page: Page): Promise<{ result: string; status: string; verdicts: number }> {
  await page.waitForTimeout(SETTLE_MS);
  return {
    result: (await page.textContent('#result')) ?? '',
    status: (await page.textContent('#status')) ?? '',
    verdicts: await page.locator('#verdict').count(),
  };
}

describe('the verify page drops the work of a verification the user has moved on from (P163)', () => {
  it('shows nothing of a slow answer that arrives after Clear, and aborts its request', async () => {
    const held = gate();
    await withRule(verifyProxy, { matches: isVerify, holdBody: held.promise }, async () => {
      const { page, cspViolations, pageErrors } = await openVerifyPage();
      await page.fill('#bundle-text', JSON.stringify(tampered));
      const posted = verifyProxy.next('POST', /^\/verify$/);
      await page.click('#verify-button');
      const request = await posted;
      await page.click('#clear-button');
      await abortedOrLater(request);
      held.open();
      await request.done;
      expect(await shownAfterSettling(page)).toEqual({ result: '', status: '', verdicts: 0 });
      expect(request.aborted).toBe(true);
      // Clear gives the page back: Verify can be pressed at once.
      expect(await page.isEnabled('#verify-button')).toBe(true);
      expect(cspViolations).toEqual([]);
      expect(pageErrors).toEqual([]);
      await page.close();
    });
  });

  it('never draws the old verdict under a file chosen while the answer was on its way', async () => {
    const held = gate();
    const { page, cspViolations, pageErrors } = await openVerifyPage();
    await withRule(verifyProxy, { matches: isVerify, holdBody: held.promise }, async () => {
      await page.fill('#bundle-text', JSON.stringify(tampered));
      const posted = verifyProxy.next('POST', /^\/verify$/);
      await page.click('#verify-button');
      const request = await posted;
      await page.setInputFiles('#bundle-file', {
        name: 'second.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify(valid)),
      });
      await page.locator('#status', { hasText: 'second.json' }).waitFor();
      await abortedOrLater(request);
      held.open();
      await request.done;
      const shown = await shownAfterSettling(page);
      expect(shown.verdicts).toBe(0);
      expect(shown.result).toBe('');
      expect(shown.status).toContain('second.json');
      expect(request.aborted).toBe(true);
    });
    // The file chosen is the one verified, and its verdict is the only one on the page.
    await page.click('#verify-button');
    await page.waitForSelector('#verdict');
    expect(await page.textContent('#verdict')).toContain('✔ VERIFIED');
    expect(await page.locator('#verdict').count()).toBe(1);
    expect(await page.textContent('#bundle-hash')).toBe(validHash);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('drops a slow answer when the pasted bundle is edited before it arrives', async () => {
    const held = gate();
    await withRule(verifyProxy, { matches: isVerify, holdBody: held.promise }, async () => {
      const { page, cspViolations, pageErrors } = await openVerifyPage();
      await page.fill('#bundle-text', JSON.stringify(tampered));
      const posted = verifyProxy.next('POST', /^\/verify$/);
      await page.click('#verify-button');
      const request = await posted;
      await page.fill('#bundle-text', JSON.stringify(valid));
      await abortedOrLater(request);
      held.open();
      await request.done;
      const shown = await shownAfterSettling(page);
      expect(shown.verdicts).toBe(0);
      expect(shown.status).toContain('changed');
      expect(request.aborted).toBe(true);
      expect(await page.isEnabled('#verify-button')).toBe(true);
      expect(cspViolations).toEqual([]);
      expect(pageErrors).toEqual([]);
      await page.close();
    });
  });

  it('stops drawing a result when Clear is pressed as its verdict appears', async () => {
    const { page, cspViolations, pageErrors } = await openVerifyPage();
    await page.fill('#bundle-text', JSON.stringify(tampered));
    // A person pressing Clear the moment the verdict shows, before the page has finished the sections below it:
    // the click is made from inside the page, as soon as the verdict is in the document.
    await page.evaluate(`new MutationObserver((_, observer) => {
      if (!document.querySelector('#verdict')) return;
      observer.disconnect();
      document.querySelector('#clear-button').click();
    }).observe(document.querySelector('#result'), { childList: true })`);
    await page.click('#verify-button');
    expect(await shownAfterSettling(page)).toEqual({ result: '', status: '', verdicts: 0 });
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('aborts the log look-up of a result that was cleared, and writes nothing of it', async () => {
    const held = gate();
    await withRule(logProxy, { matches: isLookup, holdBody: held.promise }, async () => {
      const { page, cspViolations, pageErrors } = await openVerifyPage();
      await page.fill('#bundle-text', JSON.stringify(valid));
      const lookedUp = logProxy.next('GET', /^\/lookup/);
      await page.click('#verify-button');
      const lookup = await lookedUp;
      await page.waitForSelector('#timeline');
      expect(await page.textContent('#log-inclusion')).toContain('Checking');
      await page.click('#clear-button');
      await abortedOrLater(lookup);
      held.open();
      await lookup.done;
      expect(await shownAfterSettling(page)).toEqual({ result: '', status: '', verdicts: 0 });
      expect(lookup.aborted).toBe(true);
      expect(cspViolations).toEqual([]);
      expect(pageErrors).toEqual([]);
      await page.close();
    });
  });
});

describe('the revocation page shows freshness only for a list whose signature verified (P164)', () => {
  /** A rule that rewrites the signed list on its way to the browser. */
  const alterList = (change: (list: Json) => void): Rule => ({
    matches: (method, path) => method === 'GET' && /^\/\.well-known\/[^/]*revocations\.json/.test(path),
    rewrite: (body) => {
      const list = JSON.parse(body.toString('utf8')) as Json;
      change(list);
      return Buffer.from(JSON.stringify(list));
    },
  });

  async function openRevocationPage(rule: Rule) {
    return withRule(revocationProxy, rule, async () => {
      const watched = await watchedPage(desktop.context);
      await watched.page.goto(`${revocationProxy.url}/`);
      await watched.page.waitForSelector('body[data-ready="true"]');
      return watched;
    });
  }

  it('shows the list as fresh and green through the proxy when nothing was altered', async () => {
    const { page, cspViolations } = await openRevocationPage(alterList(() => {}));
    expect(await page.getAttribute('#list-signature', 'data-ok')).toBe('true');
    expect(await page.textContent('#freshness-banner')).toContain('FRESH');
    expect(await page.getAttribute('#freshness-banner', 'class')).toContain('pass');
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('shows a red failure, never FRESH, for a list whose revocations were dropped in transit', async () => {
    const { page, cspViolations, pageErrors } = await openRevocationPage(
      alterList((list) => {
        list['entries'] = [];
      }),
    );
    expect(await page.getAttribute('#list-signature', 'data-ok')).toBe('false');
    const banner = page.locator('#freshness-banner');
    expect(await banner.getAttribute('class')).toContain('fail');
    expect(await banner.getAttribute('class')).not.toContain('pass');
    expect(await banner.textContent()).not.toContain('FRESH');
    expect(await banner.textContent()).toContain('signature does not verify');
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('does not call a stale list fresh because someone pushed its next_update forward', async () => {
    // Two days on, the real list is stale; the altered copy claims another week. The clock belongs to the
    // context, so this test has its own: the other pages keep the real time.
    const later = await desktop.browser.newContext();
    const { page } = await watchedPage(later);
    await page.clock.setFixedTime(new Date(Date.now() + 2 * 86_400_000));
    await withRule(
      revocationProxy,
      alterList((list) => {
        list['next_update'] = new Date(Date.now() + 9 * 86_400_000).toISOString();
      }),
      async () => {
        await page.goto(`${revocationProxy.url}/`);
        await page.waitForSelector('body[data-ready="true"]');
      },
    );
    expect(await page.getAttribute('#list-signature', 'data-ok')).toBe('false');
    expect(await page.getAttribute('#freshness-banner', 'class')).toContain('fail');
    expect(await page.textContent('#freshness-banner')).not.toContain('FRESH');
    await later.close();
  });

  it('shows a red failure for a list that carries no signature at all', async () => {
    const { page } = await openRevocationPage(
      alterList((list) => {
        delete list['signature'];
      }),
    );
    expect(await page.getAttribute('#list-signature', 'data-ok')).toBe('false');
    expect(await page.getAttribute('#freshness-banner', 'class')).toContain('fail');
    expect(await page.textContent('#freshness-banner')).not.toContain('FRESH');
    await page.close();
  });
});
