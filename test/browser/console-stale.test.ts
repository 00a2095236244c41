// What the console shows must belong to what is on the page (P163, P164). Real verification, log and revocation
// services in-process, each behind a local proxy (./proxy.ts) that can hold an answer back or alter it in
// transit; Debian's Chromium drives the pages as a person would.
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
  revoke,
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
  type Watched,
  watchedPage,
} from './harness.ts';
import { type FrontProxy, type Passed, type Rule, startProxy } from './proxy.ts';

type Json = Record<string, unknown>;

const LOG_TOKEN = 'console-stale-log-operator-token-0001';
/** The revocation service's list key, known to the test so it can sign lists the service never issued (P172). */
const LIST_KEY_B64 = Buffer.alloc(32, 0x5a).toString('base64');
/** A second logged hash, for two look-ups on the log explorer (P171). */
const OTHER_HASH = `sha256:${'ab'.repeat(32)}`;
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
  revocation = await startRevocation({ env: { REVOCATION_SIGNING_KEY: LIST_KEY_B64 } });
  revocationProxy = await startProxy(revocation.url);
  expect((await revoke(revocation, 'agent-console-stale-revoked', 'key compromise')).status).toBe(201);

  const sample = sampleBundle({ tier: 'standard', entries: 4 });
  valid = sample.signed_bundle;
  validHash = sample.bundleHash;
  expect((await appendToLog(logUrl, LOG_TOKEN, validHash)).status).toBe(201);
  expect((await appendToLog(logUrl, LOG_TOKEN, OTHER_HASH)).status).toBe(201);
  for (let waited = 0; ; waited += 50) {
    const signed = (await (await fetch(`${logUrl}/root/signed`)).json()) as { tree_size: number };
    if (signed.tree_size >= 2) break;
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

/** Runs `body` in a browser context of its own (its own storage and clock), closed after. */
async function inOwnContext(body: (context: BrowserContext) => Promise<void>): Promise<void> {
  const context = await desktop.browser.newContext();
  try {
    await body(context);
  } finally {
    await context.close();
  }
}

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

/** Lets a held answer go once the page has abandoned its request (abortedOrLater), and waits for its end. */
async function releaseAfterAbort(held: ReturnType<typeof gate>, request: Passed): Promise<void> {
  await abortedOrLater(request);
  held.open();
  await request.done;
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

/** A rule that rewrites, as JSON, the answers to the requests `matches` picks. */
function rewriteJson<T = Json>(matches: Rule['matches'], change: (value: T) => void): Rule {
  return {
    matches,
    rewrite: (body) => {
      const value = JSON.parse(body.toString('utf8')) as T;
      change(value);
      return Buffer.from(JSON.stringify(value));
    },
  };
}

const isVerify = (method: string, path: string) => method === 'POST' && path === '/verify';
const isLookup = (method: string, path: string) => method === 'GET' && path.startsWith('/lookup');
/** The log's look-up answered with `index` where its entry's index belongs. */
const lookupAnswering = (index: unknown): Rule =>
  rewriteJson(isLookup, (found) => {
    found['log_index'] = index;
  });

/** A watched page in `context`, opened at `url` and ready. */
async function openAt(url: string, context: BrowserContext = desktop.context): Promise<Watched> {
  const watched = await watchedPage(context);
  await watched.page.goto(url);
  await watched.page.waitForSelector('body[data-ready="true"]');
  return watched;
}

const openVerifyPage = () => openAt(`${verifyProxy.url}/`);
// Its own context: full /entries ranges are cached as immutable (P183), and these tests rewrite them at the proxy.
const openLogExplorer = async () => openAt(`${logProxy.url}/`, await freshContext(desktop));

/** What every page must end with: no CSP violation, no page error; then it is closed. */
async function expectCleanAndClose({ page, cspViolations, pageErrors }: Watched): Promise<void> {
  expect(cspViolations).toEqual([]);
  expect(pageErrors).toEqual([]);
  await page.close();
}

/**
 * Verifies `bundle` on the verify page with the answer held back, does `meanwhile` while it is held, then lets it
 * go once the page has abandoned the request. Returns that request.
 */
async function verifyWhileHeld(page: Page, bundle: Json, meanwhile: () => Promise<void>): Promise<Passed> {
  const held = gate();
  return withRule(verifyProxy, { matches: isVerify, holdBody: held.promise }, async () => {
    await page.fill('#bundle-text', JSON.stringify(bundle));
    const posted = verifyProxy.next('POST', /^\/verify$/);
    await page.click('#verify-button');
    const request = await posted;
    await meanwhile();
    await releaseAfterAbort(held, request);
    return request;
  });
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
    const watched = await openVerifyPage();
    const { page } = watched;
    const request = await verifyWhileHeld(page, tampered, () => page.click('#clear-button'));
    expect(await shownAfterSettling(page)).toEqual({ result: '', status: '', verdicts: 0 });
    expect(request.aborted).toBe(true);
    // Clear gives the page back: Verify can be pressed at once.
    expect(await page.isEnabled('#verify-button')).toBe(true);
    await expectCleanAndClose(watched);
  });

  it('never draws the old verdict under a file chosen while the answer was on its way', async () => {
    const watched = await openVerifyPage();
    const { page } = watched;
    const request = await verifyWhileHeld(page, tampered, async () => {
      await page.setInputFiles('#bundle-file', {
        name: 'second.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify(valid)),
      });
      await page.locator('#status', { hasText: 'second.json' }).waitFor();
    });
    const shown = await shownAfterSettling(page);
    expect(shown.verdicts).toBe(0);
    expect(shown.result).toBe('');
    expect(shown.status).toContain('second.json');
    expect(request.aborted).toBe(true);
    // The file chosen is the one verified, and its verdict is the only one on the page.
    await page.click('#verify-button');
    await page.waitForSelector('#verdict');
    expect(await page.textContent('#verdict')).toContain('✔ VERIFIED');
    expect(await page.locator('#verdict').count()).toBe(1);
    expect(await page.textContent('#bundle-hash')).toBe(validHash);
    await expectCleanAndClose(watched);
  });

  it('drops a slow answer when the pasted bundle is edited before it arrives', async () => {
    const watched = await openVerifyPage();
    const { page } = watched;
    const request = await verifyWhileHeld(page, tampered, () =>
      page.fill('#bundle-text', JSON.stringify(valid)),
    );
    const shown = await shownAfterSettling(page);
    expect(shown.verdicts).toBe(0);
    expect(shown.status).toContain('changed');
    expect(request.aborted).toBe(true);
    expect(await page.isEnabled('#verify-button')).toBe(true);
    await expectCleanAndClose(watched);
  });

  it('stops drawing a result when Clear is pressed as its verdict appears', async () => {
    const watched = await openVerifyPage();
    const { page } = watched;
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
    await expectCleanAndClose(watched);
  });

  it('aborts the log look-up of a result that was cleared, and writes nothing of it', async () => {
    const held = gate();
    await withRule(logProxy, { matches: isLookup, holdBody: held.promise }, async () => {
      const watched = await openVerifyPage();
      const { page } = watched;
      await page.fill('#bundle-text', JSON.stringify(valid));
      const lookedUp = logProxy.next('GET', /^\/lookup/);
      await page.click('#verify-button');
      const lookup = await lookedUp;
      await page.waitForSelector('#timeline');
      expect(await page.textContent('#log-inclusion')).toContain('Checking');
      await page.click('#clear-button');
      await releaseAfterAbort(held, lookup);
      expect(await shownAfterSettling(page)).toEqual({ result: '', status: '', verdicts: 0 });
      expect(lookup.aborted).toBe(true);
      await expectCleanAndClose(watched);
    });
  });
});

describe('the log explorer shows the answer to the last look-up, whatever order the answers come in (P171)', () => {
  it('never lets a slow answer to an earlier look-up overwrite a later one, and aborts it', async () => {
    const held = gate();
    const first = encodeURIComponent(validHash);
    const isFirstLookup = (method: string, path: string) => isLookup(method, path) && path.includes(first);
    await withRule(logProxy, { matches: isFirstLookup, holdBody: held.promise }, async () => {
      const watched = await openLogExplorer();
      const { page } = watched;
      await page.fill('#lookup-hash', validHash);
      const lookedUp = logProxy.next('GET', /^\/lookup/);
      await page.click('#lookup-form button[type="submit"]');
      const slow = await lookedUp;
      // The user looks up another hash while the first answer is still on its way; that one comes at once.
      await page.fill('#lookup-hash', OTHER_HASH);
      await page.click('#lookup-form button[type="submit"]');
      await page.locator('#proof-result', { hasText: 'Entry #1' }).waitFor();
      expect(await page.textContent('#lookup-status')).toContain('index 1');
      await releaseAfterAbort(held, slow);
      await page.waitForTimeout(SETTLE_MS);
      expect(await page.textContent('#lookup-status')).toContain('index 1');
      expect(await page.textContent('#proof-result')).toContain('Entry #1');
      expect(await page.getAttribute('#proof-result', 'data-ok')).toBe('true');
      expect(await page.locator('#entries tr[data-index="1"]').count()).toBe(1);
      expect(slow.aborted).toBe(true);
      await expectCleanAndClose(watched);
    });
  });
});

const isList = (method: string, path: string) =>
  method === 'GET' && /^\/\.well-known\/[^/]*revocations\.json/.test(path);
/** A rule that rewrites the signed list on its way to the browser (sent as no-store, so never cached). */
const alterList = (change: (list: Json) => void): Rule => rewriteJson(isList, change);

/** The revocation page opened in `context` while `rule` applies to its requests. */
async function openRevocationWith(context: BrowserContext, rule: Rule): Promise<Watched> {
  return withRule(revocationProxy, rule, () => openAt(`${revocationProxy.url}/`, context));
}

describe('the revocation page shows freshness only for a list whose signature verified (P164)', () => {
  const openRevocationPage = (rule: Rule) => openRevocationWith(desktop.context, rule);

  it('shows the list as fresh and green through the proxy when nothing was altered', async () => {
    const { page, cspViolations } = await openRevocationPage(alterList(() => {}));
    expect(await page.getAttribute('#list-signature', 'data-ok')).toBe('true');
    expect(await page.textContent('#freshness-banner')).toContain('FRESH');
    expect(await page.getAttribute('#freshness-banner', 'class')).toContain('pass');
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('shows a red failure, never FRESH, for a list whose revocations were dropped in transit', async () => {
    const watched = await openRevocationPage(
      alterList((list) => {
        list['entries'] = [];
      }),
    );
    const { page } = watched;
    expect(await page.getAttribute('#list-signature', 'data-ok')).toBe('false');
    const banner = page.locator('#freshness-banner');
    expect(await banner.getAttribute('class')).toContain('fail');
    expect(await banner.getAttribute('class')).not.toContain('pass');
    expect(await banner.textContent()).not.toContain('FRESH');
    expect(await banner.textContent()).toContain('signature does not verify');
    await expectCleanAndClose(watched);
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

  it('keeps the entries of an unverified list out of the table, folded and marked as not the issuer’s', async () => {
    // Someone in the path adds a revocation the issuer never made: an operator must not read it as one.
    const framed = 'agent-framed-in-transit';
    const watched = await openRevocationPage(
      alterList((list) => {
        (list['entries'] as Json[]).push({
          agent_id: framed,
          revoked_at: new Date().toISOString(),
          reason_hash: `sha256:${'0'.repeat(64)}`,
        });
      }),
    );
    const { page } = watched;
    expect(await page.getAttribute('#list-signature', 'data-ok')).toBe('false');
    expect(await page.textContent('#revoked')).not.toContain(framed);
    expect(await page.getByText(framed).isVisible()).toBe(false);
    const folded = page.locator('#unverified-entries');
    expect(await folded.getAttribute('open')).toBeNull();
    expect(await folded.locator('summary').textContent()).toContain('unverified');
    await folded.locator('summary').click();
    expect(await page.getByText(framed).isVisible()).toBe(true);
    expect(await folded.locator('table').getAttribute('class')).toContain('unverified');
    expect(await folded.textContent()).toContain('not the issuer');
    await expectCleanAndClose(watched);
  });
});

/** A rule that answers the list request with `body` instead of what the service sent. */
const replay = (body: string): Rule => ({ matches: isList, rewrite: () => Buffer.from(body) });
/** A rule that passes the list unchanged and keeps a copy of it. */
function recorder(): { rule: Rule; last(): string } {
  let seen = '';
  return {
    rule: {
      matches: isList,
      rewrite: (body) => {
        seen = body.toString('utf8');
        return body;
      },
    },
    last: () => seen,
  };
}

/**
 * The page in `context`, the list answered as `rule` says, or passed unchanged (and as no-store: the service's
 * max-age would otherwise let the browser answer the next look from its cache, never asking the proxy).
 */
async function openIn(context: BrowserContext, rule: Rule = recorder().rule): Promise<Page> {
  return (await openRevocationWith(context, rule)).page;
}

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

describe('the revocation page remembers the newest list it verified, and says when one goes back (P172)', () => {
  it('calls an older, validly signed list replayed within its next_update a ROLLBACK, not FRESH', () =>
    inOwnContext(async (context) => {
      const older = recorder();
      const first = await openIn(context, older.rule);
      expect(await first.textContent('#freshness-banner')).toContain('FRESH');
      const olderNumber = (JSON.parse(older.last()) as { list_number: number }).list_number;
      await first.close();
      // The issuer publishes a newer list; the page sees it.
      expect((await revoke(revocation, `agent-console-rollback-${Date.now()}`)).status).toBe(201);
      const newer = await openIn(context);
      expect(await newer.textContent('#list')).toContain(String(olderNumber + 1));
      expect(await newer.textContent('#freshness-banner')).toContain('FRESH');
      await newer.close();
      // Someone answers with the older list again: signed, within its next_update, one revocation short.
      const replayed = await openIn(context, replay(older.last()));
      expect(await replayed.getAttribute('#list-signature', 'data-ok')).toBe('true');
      const banner = replayed.locator('#freshness-banner');
      expect(await banner.getAttribute('data-state')).toBe('rollback');
      expect(await banner.getAttribute('class')).toContain('fail');
      expect(await banner.textContent()).toContain('ROLLBACK');
      expect(await banner.textContent()).not.toContain('FRESH');
      expect(await banner.textContent()).toContain(`list ${olderNumber + 1}`);
      await replayed.close();
    }));

  it('lets only a validly signed, current list move what it remembers', () =>
    inOwnContext(async (context) => {
      const genuine = await openIn(context);
      expect(await genuine.textContent('#freshness-banner')).toContain('FRESH');
      await genuine.close();
      const huge = 9_000_000_000_000;
      // A list number pushed far ahead in transit: the signature fails, so it is not remembered.
      const altered = await openIn(
        context,
        alterList((list) => {
          list['list_number'] = huge;
        }),
      );
      expect(await altered.getAttribute('#list-signature', 'data-ok')).toBe('false');
      await altered.close();
      // A list the issuer's key really signed, but dated a month ahead: not valid yet, so not remembered either
      // (a stolen or misused key could otherwise lock the page on ROLLBACK for every genuine list after it).
      const ahead = await openIn(
        context,
        replay(
          signedByIssuer({
            list_number: huge,
            updated_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
            next_update: new Date(Date.now() + 31 * 86_400_000).toISOString(),
          }),
        ),
      );
      expect(await ahead.getAttribute('#list-signature', 'data-ok')).toBe('true');
      expect(await ahead.textContent('#freshness-banner')).not.toContain('FRESH');
      await ahead.close();
      const after = await openIn(context);
      expect(await after.getAttribute('#freshness-banner', 'data-state')).toBe('fresh');
      expect(await after.textContent('#freshness-banner')).not.toContain('ROLLBACK');
      await after.close();
    }));
});

describe('identifiers in look-alike letters are marked (P172)', () => {
  it('marks each non-ASCII letter of an agent id with its code point', async () => {
    // The service refuses such an id (400), so only a list altered on its way can carry one: "аgent-…" with a
    // Cyrillic а (U+0430) reads on screen as the ASCII id beside it.
    expect((await revoke(revocation, '\u0430gent-console-lookalike')).status).toBe(400);
    const lookalike = (list: Json) => {
      const entries = list['entries'] as Json[];
      entries.push({ ...entries[0], agent_id: `\u0430${String(entries[0]!['agent_id']).slice(1)}` });
    };
    const watched = await openRevocationWith(desktop.context, alterList(lookalike));
    const { page } = watched;
    await page.locator('#unverified-entries summary').click();
    const rows = page.locator('#unverified-entries tbody tr');
    const marked = rows.filter({ hasText: 'U+0430' });
    expect(await marked.count()).toBe(1);
    expect(await marked.locator('.non-ascii').count()).toBe(1);
    expect(await marked.locator('td').first().textContent()).toMatch(/^\u0430⟨U\+0430⟩gent-/);
    const original = rows.filter({ hasText: /^agent-console-stale-revoked/ });
    expect(await original.count()).toBe(1);
    expect(await original.locator('.non-ascii').count()).toBe(0);
    expect(await page.locator('#unverified-entries .non-ascii').count()).toBe(1);
    await expectCleanAndClose(watched);
  });
});

describe('the log explorer shows the answer to the last look-up when the proofs come out of order (P171)', () => {
  it('never lets a slow proof of an earlier look-up replace a later one, and aborts it', async () => {
    const held = gate();
    // validHash is entry 0: its look-up is answered, only its proof is slow.
    const isFirstProof = (method: string, path: string) => method === 'GET' && path.startsWith('/proof/0?');
    await withRule(logProxy, { matches: isFirstProof, holdBody: held.promise }, async () => {
      const watched = await openLogExplorer();
      const { page } = watched;
      await page.fill('#lookup-hash', validHash);
      const proving = logProxy.next('GET', /^\/proof\/0\?/);
      await page.click('#lookup-form button[type="submit"]');
      const slow = await proving;
      expect(await page.textContent('#lookup-status')).toContain('index 0');
      await page.fill('#lookup-hash', OTHER_HASH);
      await page.click('#lookup-form button[type="submit"]');
      await page.locator('#proof-result', { hasText: 'Entry #1' }).waitFor();
      await releaseAfterAbort(held, slow);
      await page.waitForTimeout(SETTLE_MS);
      expect(await page.textContent('#lookup-status')).toContain('index 1');
      expect(await page.textContent('#proof-result')).toContain('Entry #1');
      expect(await page.textContent('#proof-result')).not.toContain('Entry #0');
      expect(await page.getAttribute('#proof-result', 'data-ok')).toBe('true');
      expect(slow.aborted).toBe(true);
      await expectCleanAndClose(watched);
    });
  });
});

describe('the log explorer marks what the log sends that is not what it should be (P179)', () => {
  const isEntries = (method: string, path: string) => method === 'GET' && path.startsWith('/entries?');
  const isSigned = (method: string, path: string) => method === 'GET' && path === '/root/signed';

  it('folds each verifier key to its name and type, the ML-DSA key written out only when opened', async () => {
    const watched = await openLogExplorer();
    const { page } = watched;
    const keys = ((await (await fetch(`${logProxy.url}/root/signed`)).json()) as { verifier_keys: string[] })
      .verifier_keys;
    const mldsa = keys.find((k) => k.length > 2000);
    expect(mldsa).toBeDefined();
    const box = page.locator('#checkpoint');
    // The box as drawn, before anything is opened: one line per key, none running to thousands of characters.
    expect((await box.boundingBox())?.height).toBeLessThan(500);
    expect(await box.locator('code.vkey-full').first().isVisible()).toBe(false);
    const lines = box.locator('details.vkey');
    expect(await lines.count()).toBe(keys.length);
    expect(await box.textContent()).toContain('Ed25519');
    const pq = lines.filter({ hasText: 'ML-DSA-65' });
    expect(await pq.count()).toBe(1);
    await pq.locator('summary').click();
    expect(await pq.locator('code.vkey-full').textContent()).toBe(mldsa);
    await expectCleanAndClose(watched);
  });

  it('bounds hostile verifier keys: how many are drawn and how much of each', async () => {
    const rule = rewriteJson(isSigned, (signed) => {
      const junk = Array.from({ length: 200 }, (_, i) => `junk${i}+0000000${i % 10}+${'A'.repeat(100_000)}`);
      signed['verifier_keys'] = [...(signed['verifier_keys'] as string[]), ...junk];
    });
    await withRule(logProxy, rule, async () => {
      const { page, pageErrors } = await openLogExplorer();
      const box = page.locator('#checkpoint');
      expect((await box.boundingBox())?.height).toBeLessThan(700);
      expect((await box.textContent())?.length ?? 0).toBeLessThan(100_000);
      expect(await box.textContent()).toContain('more keys, not drawn');
      expect(pageErrors).toEqual([]);
      await page.close();
    });
  });

  it('marks entry hashes that are not sha256 hex and indexes that are not indexes', async () => {
    const lookalike = validHash.replace(/a/, '\u0430'); // a Cyrillic а in place of one hex a
    expect(lookalike).not.toBe(validHash);
    const rule = rewriteJson<{ entries: Json[] }>(isEntries, (page) => {
      const [first] = page.entries;
      page.entries.push(
        { ...first, log_index: 2, bundle_hash: lookalike },
        { ...first, log_index: 3, bundle_hash: validHash.toUpperCase() },
        { ...first, log_index: 4, bundle_hash: `sha256:${'f'.repeat(200_000)}` },
        { ...first, log_index: 5, bundle_hash: { toString: 1 } },
        { ...first, log_index: '6\u202e', bundle_hash: validHash },
        { ...first, log_index: -1, bundle_hash: validHash },
      );
    });
    await withRule(logProxy, rule, async () => {
      const watched = await openLogExplorer();
      const { page } = watched;
      const rows = page.locator('#entries tbody tr');
      await rows.nth(7).waitFor();
      const hashCell = (i: number) => rows.nth(i).locator('td').nth(1);
      const indexCell = (i: number) => rows.nth(i).locator('td').nth(0);
      // Newest first: the six hostile entries, then entries 1 and 0 as the log holds them.
      const texts = await Promise.all(
        [0, 1, 2, 3, 4, 5, 6, 7].map((i) =>
          hashCell(i)
            .textContent()
            .then((t) => t ?? ''),
        ),
      );
      const marked = await Promise.all(
        [0, 1, 2, 3, 4, 5, 6, 7].map((i) => hashCell(i).locator('.malformed').count()),
      );
      const wellFormed = [6, 7, 0, 1];
      for (const i of wellFormed) expect(marked[i], texts[i]).toBe(0);
      for (const i of [2, 3, 4, 5]) expect(marked[i], texts[i]).toBe(1);
      expect(texts[5]).toContain('⟨U+0430⟩');
      expect(texts[2]).toContain('toString');
      expect(texts[3]?.length).toBeLessThan(400);
      expect(await indexCell(0).locator('.malformed').count()).toBe(1);
      expect(await indexCell(1).locator('.malformed').count()).toBe(1);
      expect(await indexCell(0).textContent()).toContain('-1');
      expect(await indexCell(1).textContent()).toContain('⟨U+202E⟩');
      expect(await indexCell(6).locator('.malformed').count()).toBe(0);
      // A malformed entry cannot be proved: its button says so instead of sending the log a request.
      for (const i of [0, 1, 2, 3, 4, 5]) expect(await rows.nth(i).locator('button').isDisabled()).toBe(true);
      expect(await rows.nth(6).locator('button').isDisabled()).toBe(false);
      await expectCleanAndClose(watched);
    });
  });

  it('does not page or prove a look-up answered with an index that is not one', async () => {
    await withRule(logProxy, lookupAnswering('0\u202e1'), async () => {
      const { page, pageErrors } = await openLogExplorer();
      const before = logProxy.passed.length;
      await page.fill('#lookup-hash', validHash);
      await page.click('#lookup-form button[type="submit"]');
      await page.locator('#lookup-status', { hasText: 'not an index' }).waitFor();
      await page.waitForTimeout(SETTLE_MS);
      expect(await page.textContent('#lookup-status')).toContain('⟨U+202E⟩');
      const after = logProxy.passed.slice(before).map((p) => p.path);
      expect(after.filter((p) => p.startsWith('/proof') || p.startsWith('/entries'))).toEqual([]);
      expect(pageErrors).toEqual([]);
      await page.close();
    });
  });
});

describe('the revocation page asks the service again on every load (P179)', () => {
  it('shows a changed list on reload, and revalidates an unchanged one instead of fetching it whole', () =>
    inOwnContext(async (context) => {
      // No rule: the list passes with the service's own ETag, Last-Modified and max-age.
      const { page, pageErrors } = await openAt(`${revocationProxy.url}/`, context);
      const listNumber = page
        .locator('#list dt', { hasText: 'List number' })
        .locator('xpath=following-sibling::dd[1]');
      const before = await listNumber.textContent();
      const agent = `agent-console-reload-${Date.now()}`;
      expect(await page.textContent('#revoked')).not.toContain(agent);
      const seenBefore = revocation.seen.length;
      await page.reload();
      await page.waitForSelector('body[data-ready="true"]');
      const unchanged = revocation.seen.slice(seenBefore).filter((r) => r.url.includes('revocations'));
      expect(unchanged.map((r) => r.status)).toEqual([304]);
      expect(await listNumber.textContent()).toBe(before);
      expect(await page.getAttribute('#list-signature', 'data-ok')).toBe('true');
      expect((await revoke(revocation, agent)).status).toBe(201);
      await page.reload();
      await page.waitForSelector('body[data-ready="true"]');
      expect(await page.textContent('#revoked')).toContain(agent);
      expect(await page.getAttribute('#list-signature', 'data-ok')).toBe('true');
      expect(pageErrors).toEqual([]);
    }));
});

describe('the revocation page forgets a remembered list number only when its user says so (P179)', () => {
  /** Memory of list 1,000,000 from the issuer's key, then the issuer's real (restarted, lower) numbering. */
  async function rolledBack(context: BrowserContext): Promise<Page> {
    const before = await openIn(context, replay(signedByIssuer({ list_number: 1_000_000 })));
    expect(await before.getAttribute('#freshness-banner', 'data-state')).toBe('fresh');
    await before.close();
    const page = await openIn(context);
    expect(await page.getAttribute('#freshness-banner', 'data-state')).toBe('rollback');
    return page;
  }

  it('offers to forget after a rollback, asks first, and afterwards judges the current list fresh', () =>
    inOwnContext(async (context) => {
      const page = await rolledBack(context);
      await page.click('#forget-newest');
      const confirm = page.locator('#forget-confirm');
      expect(await confirm.textContent()).toContain('1000000');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.click('#forget-cancel');
      expect(await confirm.isVisible()).toBe(false);
      await page.close();
      const again = await openIn(context);
      expect(await again.getAttribute('#freshness-banner', 'data-state')).toBe('rollback');
      await again.click('#forget-newest');
      await withRule(revocationProxy, recorder().rule, async () => {
        await again.click('#forget-yes');
        await again.waitForSelector('body[data-ready="true"] #freshness-banner[data-state="fresh"]');
      });
      await again.close();
      // The current list is now the one remembered: the old high number replayed is not a rollback of it,
      // but a list below the current one is.
      const next = await openIn(context);
      expect(await next.getAttribute('#freshness-banner', 'data-state')).toBe('fresh');
      await next.close();
      const older = await openIn(context, replay(signedByIssuer({ list_number: 0 })));
      expect(await older.getAttribute('#freshness-banner', 'data-state')).toBe('rollback');
      await older.close();
    }));

  it('cannot be made to forget by anything the server sends or a script dispatches', () =>
    inOwnContext(async (context) => {
      const page = await rolledBack(context);
      // A click a script makes is not the user's: nothing is forgotten.
      await page.evaluate(
        "document.querySelector('#forget-newest').click(); document.querySelector('#forget-yes').click();",
      );
      await page.waitForTimeout(SETTLE_MS);
      await page.close();
      // Lists the issuer's key signed that look like a restart (numbered from 0 or 1) do not forget either.
      for (const fields of [{ list_number: 0 }, { list_number: 1, entries: [] }]) {
        const served = await openIn(context, replay(signedByIssuer(fields)));
        expect(await served.getAttribute('#freshness-banner', 'data-state')).toBe('rollback');
        await served.close();
      }
      const after = await openIn(context);
      expect(await after.getAttribute('#freshness-banner', 'data-state')).toBe('rollback');
      expect(await after.textContent('#freshness-banner')).toContain('1000000');
      await after.close();
    }));
});

describe('the verify page checks the index the log answers before using it (P181)', () => {
  // What a hostile log, or whatever answers in front of it, could put where an index belongs: a path that climbs
  // out of /proof/, a number in a string, an object no text conversion accepts, a fraction, a negative.
  const hostile: ReadonlyArray<[string, unknown]> = [
    ['a path', '0/../../x'],
    ['a number in a string', '1e3'],
    ['an object', { toString: 1 }],
    ['a fraction', 0.5],
    ['a negative', -1],
  ];
  for (const [what, index] of hostile) {
    it(`says the log answered a malformed index (${what}) and requests nothing more`, async () => {
      await withRule(logProxy, lookupAnswering(index), async () => {
        const watched = await openVerifyPage();
        const { page } = watched;
        await page.fill('#bundle-text', JSON.stringify(valid));
        const lookedUp = logProxy.next('GET', /^\/lookup/);
        await page.click('#verify-button');
        const lookup = await lookedUp;
        const before = logProxy.passed.indexOf(lookup);
        await page.locator('#log-inclusion[data-state]').waitFor();
        await page.waitForTimeout(SETTLE_MS);
        const shown = (await page.textContent('#log-inclusion')) ?? '';
        expect(shown).toContain('malformed index');
        expect(shown).not.toContain('Included');
        expect(shown).not.toContain('not yet covered');
        expect(await page.getAttribute('#log-inclusion', 'data-state')).toBe('fail');
        expect(logProxy.passed.slice(before + 1).map((p) => p.path)).toEqual([]);
        await expectCleanAndClose(watched);
      });
    });
  }
});

describe('the revocation page marks a reason hash that is not one and a jurisdiction in look-alike letters (P181)', () => {
  it('marks a look-alike reason hash and the non-ASCII letters of a jurisdiction', async () => {
    const lookalike = `sha256:${'\u0430'.repeat(64)}`; // Cyrillic а in place of every hex a
    const watched = await openRevocationWith(
      desktop.context,
      alterList((list) => {
        list['jurisdiction'] = '\u0415U'; // a Cyrillic Е: reads as EU
        (list['entries'] as Json[]).push({
          agent_id: 'agent-with-odd-reason',
          revoked_at: new Date().toISOString(),
          reason_hash: lookalike,
        });
      }),
    );
    const { page } = watched;
    const folded = page.locator('#unverified-entries');
    await folded.locator('summary').click();
    const row = folded.locator('tr', { hasText: 'agent-with-odd-reason' });
    expect(await row.locator('.malformed').count()).toBe(1);
    expect(await row.textContent()).toContain('⟨U+0430⟩');
    const jurisdiction = page.locator('#list dd', { hasText: 'U+0415' });
    expect(await jurisdiction.locator('code[data-non-ascii="1"]').count()).toBe(1);
    await expectCleanAndClose(watched);
  });
});

describe('the log explorer pages only with a tree size that is one (P181)', () => {
  const hostileSizes: ReadonlyArray<[string, unknown]> = [
    ['a path', '2/../../x'],
    ['a fraction', 1.5],
    ['an unsafe integer', 1e21],
  ];
  for (const [what, size] of hostileSizes) {
    it(`marks a /root tree size that is ${what} and asks for no entries with it`, async () => {
      const rule = rewriteJson(
        (method, path) => method === 'GET' && path === '/root',
        (root) => {
          root['tree_size'] = size;
        },
      );
      await withRule(logProxy, rule, async () => {
        const watched = await openLogExplorer();
        const { page } = watched;
        await page.waitForTimeout(SETTLE_MS);
        const entries = logProxy.passed.filter((p) => p.path.startsWith('/entries'));
        for (const request of entries) expect(request.path).toMatch(/^\/entries\?start=\d+&end=\d+$/);
        expect(await page.locator('#entries .malformed').count()).toBeGreaterThan(0);
        await expectCleanAndClose(watched);
      });
    });
  }
});

describe('the log explorer marks the checkpoint summary it falls back to (P181)', () => {
  it('marks a summary origin, tree size and root that are not what they should be', async () => {
    const rule = rewriteJson(
      (method, path) => method === 'GET' && path === '/root/signed',
      (signed) => {
        signed['checkpoint'] = 'not a checkpoint';
        signed['origin'] = 'l\u043eg.example'; // a Cyrillic о
        signed['tree_size'] = '2/../x';
        signed['root'] = 'ab'.repeat(31) + '\u0430b';
      },
    );
    await withRule(logProxy, rule, async () => {
      const watched = await openLogExplorer();
      const { page } = watched;
      const box = page.locator('#checkpoint');
      await box.locator('#checkpoint-signature').waitFor();
      expect(await box.locator('.malformed').count()).toBe(2);
      expect(await box.locator('dd', { hasText: 'U+043E' }).locator('code[data-non-ascii]').count()).toBe(1);
      await expectCleanAndClose(watched);
    });
  });
});
