// The verify page against bundles made by an attacker (P157, P158): real verification service and log in-process,
// Debian's Chromium. The bundle's content is the attacker's; so is its signature (anyone can sign a bundle that
// verifies with their own keys). What the page shows must come from the service's verdict and from what the
// browser recomputes, never from what the bundle says about itself.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleContentSecurityPolicy } from '../../packages/console/src/index.ts';
import { buildTestLog } from '../../services/transparency-log/src/test-support.ts';
import { type RunningApp, sampleBundle, startApp } from '../../services/verification/src/test-support.ts';
import { appendToLog, type Desktop, openDesktop, watchedPage } from './harness.ts';

type Json = Record<string, unknown>;

const LOG_TOKEN = 'console-hostile-log-operator-token-01';
/** Invisible or direction-changing characters: none may reach the screen as such. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

let desktop: Desktop;
let log: Awaited<ReturnType<typeof buildTestLog>>;
let logUrl: string;
let logDir: string;
let verification: RunningApp;
/** A bundle someone else logged; the attacker borrows its hash. */
let logged: { signed_bundle: Json; bundleHash: string };

beforeAll(async () => {
  logDir = await mkdtemp(join(tmpdir(), 'proto-console-hostile-'));
  log = await buildTestLog(logDir, { CHECKPOINT_INTERVAL_MS: '50', OPERATOR_TOKEN: LOG_TOKEN });
  logUrl = await log.listen({ port: 0, host: '127.0.0.1' });
  verification = await startApp({ CONSOLE_LOG_URL: logUrl });
  logged = sampleBundle({ tier: 'standard', entries: 2 });
  expect((await appendToLog(logUrl, LOG_TOKEN, logged.bundleHash)).status).toBe(201);
  for (let waited = 0; ; waited += 50) {
    const signed = (await (await fetch(`${logUrl}/root/signed`)).json()) as { tree_size: number };
    if (signed.tree_size >= 1) break;
    if (waited > 10_000) throw new Error('no checkpoint covers the logged bundle');
    await new Promise((r) => setTimeout(r, 50));
  }
  desktop = await openDesktop();
});

afterAll(async () => {
  await desktop?.close();
  await verification?.close();
  await log?.close();
  if (logDir) await rm(logDir, { recursive: true, force: true });
});

/** Pastes `signed` (or raw text) into the verify page and presses Verify; the page is returned ready to read. */
async function verifyInPage(signed: unknown): Promise<Awaited<ReturnType<typeof watchedPage>>> {
  const watched = await watchedPage(desktop.context);
  await watched.page.goto(`${verification.url}/`);
  await watched.page.waitForSelector('body[data-ready="true"]');
  await watched.page.fill('#bundle-text', typeof signed === 'string' ? signed : JSON.stringify(signed));
  await watched.page.click('#verify-button');
  return watched;
}

async function text(page: Page, selector: string): Promise<string> {
  return (await page.textContent(selector)) ?? '';
}

describe('the bundle hash and log inclusion the page shows', () => {
  it('recomputes a V1 bundle hash instead of trusting signature.bundle_hash, and looks that hash up', async () => {
    // A V1 bundle the log has never seen, stating the hash of a bundle that is in the log.
    const v1 = sampleBundle({ version: '1.0', tier: 'standard', entries: 2 });
    const forged = structuredClone(v1.signed_bundle);
    (forged['signature'] as Json)['bundle_hash'] = logged.bundleHash;
    const { page, cspViolations, pageErrors } = await verifyInPage(forged);
    await page.waitForSelector('#verdict');
    expect(await text(page, '#verdict')).toContain('NOT VERIFIED');
    await page.waitForSelector('#log-inclusion[data-state]');
    expect(await text(page, '#bundle-hash')).toBe(v1.bundleHash);
    expect(await page.getAttribute('#log-inclusion', 'data-state')).toBe('missing');
    expect(await text(page, '#stated-hash')).toContain(logged.bundleHash);
    expect(await text(page, '#stated-hash')).toContain('does not match');
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});

describe('text the attacker controls', () => {
  it('shows direction overrides and invisible characters in a VERIFIED bundle as visible code points', async () => {
    // Signed by its own producer, so the service says VERIFIED; the outcome text tries to reverse what follows
    // it on the line (the timestamp) and hides a zero-width space.
    const sample = sampleBundle({
      tier: 'standard',
      entries: 2,
      hooks: {
        entry: (entry, index) => {
          if (index === 0) entry['outcome'] = 'paid\u202e \u200b';
        },
      },
    });
    const { page, cspViolations, pageErrors } = await verifyInPage(sample.signed_bundle);
    await page.waitForSelector('#timeline');
    expect(await text(page, '#verdict')).toContain('✔ VERIFIED');
    const shown = await text(page, '#timeline > li[data-entry="0"]');
    expect(shown).not.toMatch(HIDDEN);
    expect(shown).toContain('paid⟨U+202E⟩ ⟨U+200B⟩');
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('renders every section of a bundle whose fields are objects no text conversion accepts', async () => {
    // {"toString": 1} cannot be turned into text by String(): the page must still show the failures.
    const hostile = structuredClone(logged.signed_bundle);
    const bundle = hostile['bundle'] as Json;
    const unprintable = { toString: 1, valueOf: 1 };
    ((bundle['intent'] as Json)['payload'] as Json)['security_tier'] = unprintable;
    const entries = bundle['audit_entries'] as Json[];
    entries[0]!['outcome'] = unprintable;
    entries[0]!['timestamp'] = unprintable;
    entries[1]!['policy_decision'] = ['approved', unprintable];
    const { page, cspViolations, pageErrors } = await verifyInPage(hostile);
    await page.waitForSelector('#verdict');
    await page.waitForSelector('#timeline', { timeout: 10_000 });
    expect(await text(page, '#verdict')).toContain('NOT VERIFIED');
    expect(await page.locator('#failures li').count()).toBeGreaterThan(0);
    expect(await page.locator('#timeline > li').count()).toBe(2);
    expect(await text(page, '#status')).not.toContain('Could not verify');
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('never shows VERIFIED styling for a bundle that claims it, nor calls a URL the bundle names', async () => {
    let attackerHits = 0;
    const attacker = `http://127.0.0.1:9/`; // discard port: a request here would show in the page's requests
    const hostile = structuredClone(logged.signed_bundle) as Json;
    hostile['verified'] = true;
    const bundle = hostile['bundle'] as Json;
    bundle['verified'] = true;
    bundle['anchor_receipt'] = { log_url: attacker, log_index: 0, merkle_proof: [] };
    (bundle['audit_entries'] as Json[])[0]!['outcome'] = '✔ VERIFIED';
    (bundle['audit_entries'] as Json[])[0]!['evidence'] = {
      result_ref: `${attacker}x.png`,
      tool: 'javascript:alert(1)',
    };
    const watched = await watchedPage(desktop.context);
    const requested: string[] = [];
    watched.page.on('request', (request) => {
      requested.push(request.url());
      if (request.url().startsWith(attacker)) attackerHits++;
    });
    await watched.page.goto(`${verification.url}/`);
    await watched.page.waitForSelector('body[data-ready="true"]');
    await watched.page.fill('#bundle-text', JSON.stringify(hostile));
    await watched.page.click('#verify-button');
    const { page } = watched;
    await page.waitForSelector('#verdict');
    await page.waitForSelector('#log-inclusion[data-state]');
    expect(await text(page, '#verdict')).toContain('✘ NOT VERIFIED');
    expect(await page.getAttribute('#verdict', 'class')).toContain('fail');
    expect(await page.locator('.verdict.pass, #result a[href^="javascript:" i]').count()).toBe(0);
    const origins = new Set(requested.map((u) => new URL(u).origin));
    expect([...origins].sort()).toEqual([new URL(verification.url).origin, new URL(logUrl).origin].sort());
    expect(attackerHits).toBe(0);
    expect(watched.cspViolations).toEqual([]);
    await page.close();
  });
});

describe('identifiers in look-alike letters (P172)', () => {
  it('marks a kid that differs from a real one only by a Cyrillic letter, with its code point', async () => {
    // The intent claims to be signed by the agent's key; its kid swaps an ASCII "a" for U+0430, so the two
    // rows of the Signers table read the same.
    // Each sample is signed with fresh keys, and one kid in eight (15/16 to the 32nd) has no "a" to swap: take a
    // sample whose passport kid has one.
    let forged: Json;
    let bundle: Record<string, { composite_sig: { classical: Json } }>;
    let realKid: string;
    do {
      forged = structuredClone(sampleBundle({ tier: 'standard', entries: 2 }).signed_bundle);
      bundle = forged['bundle'] as Record<string, { composite_sig: { classical: Json } }>;
      realKid = String(bundle['agent_passport']!.composite_sig.classical['kid']);
    } while (!realKid.includes('a'));
    expect(realKid).toContain('a');
    const lookalike = realKid.replace('a', '\u0430');
    bundle['intent']!.composite_sig.classical['kid'] = lookalike;
    const { page, cspViolations, pageErrors } = await verifyInPage(forged);
    await page.waitForSelector('#signers');
    const rows = page.locator('#signers tbody tr');
    const marked = rows.filter({ hasText: 'U+0430' });
    expect(await marked.count()).toBe(1);
    expect(await marked.locator('.non-ascii').count()).toBe(1);
    expect(await marked.locator('td').first().textContent()).toContain(
      `${lookalike.slice(0, lookalike.indexOf('\u0430') + 1)}⟨U+0430⟩`,
    );
    expect(await rows.filter({ hasText: realKid }).locator('.non-ascii').count()).toBe(0);
    expect(await page.locator('#signers .non-ascii').count()).toBe(1);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});

describe('a bundle made to hang the page', () => {
  it('stays responsive with 100,000 audit entries and 15,000 checkpoints all over the first entry', async () => {
    const huge = structuredClone(logged.signed_bundle);
    const bundle = huge['bundle'] as Json;
    bundle['audit_entries'] = Array.from({ length: 100_000 }, () => ({}));
    bundle['pq_checkpoints'] = Array.from({ length: 15_000 }, () => ({ audit_state: { entry_count: 1 } }));
    const body = JSON.stringify(huge);
    expect(body.length).toBeLessThan(1_048_576 - 64);
    const { page, pageErrors } = await verifyInPage(body);
    const started = Date.now();
    await page.waitForSelector('#timeline', { timeout: 15_000 });
    expect(Date.now() - started).toBeLessThan(15_000);
    // The page answers a script promptly once the timeline is there (its main thread is free).
    const ping = Date.now();
    await page.evaluate('1');
    expect(Date.now() - ping).toBeLessThan(1_000);
    expect(await page.locator('#timeline > li').count()).toBeLessThanOrEqual(1_000);
    expect(await text(page, '#timeline-truncated')).toContain('100000');
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});

describe("input made to eat the page's memory", () => {
  it('refuses a file far larger than the service reads, before reading it', async () => {
    const big = join(logDir, 'big\u202enosj.json');
    // 64 MB of one JSON string: read whole, decoded and parsed, it costs the tab several times that.
    await writeFile(big, `{"a":"${'x'.repeat(64 * 1024 * 1024)}"}`);
    const { page, pageErrors } = await watchedPage(desktop.context);
    const posted: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posted.push(request.url());
    });
    await page.goto(`${verification.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.setInputFiles('#bundle-file', big);
    await page.locator('#status', { hasText: 'too large' }).waitFor({ timeout: 5_000 });
    expect(await text(page, '#status')).toContain('big⟨U+202E⟩nosj.json');
    await page.click('#verify-button');
    expect(await text(page, '#status')).not.toContain('Verifying');
    expect(posted).toEqual([]);
    expect(await page.locator('#verdict').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.close();
    await rm(big);
  });

  it('answers a 1 MB string and a 200,000-deep nesting with a message, not a hang', async () => {
    const long = structuredClone(logged.signed_bundle);
    ((long['bundle'] as Json)['audit_entries'] as Json[])[0]!['outcome'] = 'x'.repeat(1_000_000);
    const deep = `{"bundle": {"audit_entries": [{"outcome": ${'['.repeat(200_000)}${']'.repeat(200_000)}}]}}`;
    for (const input of [JSON.stringify(long), deep]) {
      const { page, pageErrors } = await verifyInPage(input);
      // Polled from here: the page's CSP refuses the string evaluation waitForFunction would use.
      for (const started = Date.now(); (await text(page, '#status')).startsWith('Verifying'); ) {
        if (Date.now() - started > 10_000) throw new Error('still verifying after 10 s');
        await page.waitForTimeout(100);
      }
      const ping = Date.now();
      await page.evaluate('1');
      expect(Date.now() - ping).toBeLessThan(1_000);
      expect(await text(page, '#status')).not.toBe('');
      expect(await page.locator('.verdict.pass').count()).toBe(0);
      expect(pageErrors).toEqual([]);
      await page.close();
    }
  });
});

describe('the console responses themselves', () => {
  it('sends the strict policy on every console response and cannot be framed', async () => {
    const { page } = await watchedPage(desktop.context);
    // A page with no policy of its own (about:blank) frames the console: the console's frame-ancestors and
    // X-Frame-Options stop it (checked failing with both removed).
    await page.setContent(`<iframe id="frame" src="${verification.url}/"></iframe>`);
    await page.waitForTimeout(1_000);
    const framed = page.frames().find((f) => f.url().startsWith(verification.url));
    const ready = framed
      ? await framed.evaluate('document.body?.dataset.ready ?? null').catch(() => null)
      : null;
    expect(ready).toBeNull();
    await page.close();
    const paths = [
      '/',
      '/console/errors.html',
      '/console/verify/verify.js',
      '/console/shared/style.css',
      '/console/config.json',
      '/console/no-such-file.html',
    ];
    for (const path of paths) {
      const response = await fetch(`${verification.url}${path}`);
      // No inline script, no eval, no object (default-src 'none'), no base or form target, no framing.
      expect(response.headers.get('content-security-policy'), path).toBe(
        consoleContentSecurityPolicy([new URL(logUrl).origin]),
      );
      expect(response.headers.get('x-frame-options'), path).toBe('DENY');
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    // The log explorer, on the log service, calls nothing but its own origin.
    for (const path of ['/', '/console/log/log.js', '/console/errors.html']) {
      const response = await fetch(`${logUrl}${path}`);
      expect(response.headers.get('content-security-policy'), `log ${path}`).toBe(
        consoleContentSecurityPolicy(),
      );
      expect(response.headers.get('x-frame-options'), `log ${path}`).toBe('DENY');
    }
  });
});
