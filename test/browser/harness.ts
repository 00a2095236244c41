// Test harness of the console's browser tests: the three real services in-process on ephemeral ports, and a
// headless Debian Chromium driven by playwright-core, with CSP violations recorded and axe-core injected. Issue 17.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Every run writes its screenshots here (untracked); SAVE_DOC_SCREENSHOTS=1 also refreshes docs/screenshots. */
export const SCREENSHOT_DIR = join(ROOT, 'test', 'browser', 'screenshots');

export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Desktop {
  readonly browser: Browser;
  /** 1100×900 at scale 1: the size of the screenshots. */
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium with the desktop context the pages are tested in; other contexts (phone, dark) come from `browser`. */
export async function openDesktop(): Promise<Desktop> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
  });
  try {
    const context = await browser.newContext({
      viewport: { width: 1100, height: 900 },
      deviceScaleFactor: 1,
    });
    return {
      browser,
      context,
      close: async () => {
        await context.close();
        await browser.close();
      },
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/**
 * A context of its own, with an empty HTTP cache, as a first visit has: the log serves full `/entries` ranges as
 * `immutable` (P183), so a test that rewrites or counts them at a proxy must not get them from an earlier test's
 * cache. Closed with the browser.
 */
export function freshContext(desktop: Desktop): Promise<BrowserContext> {
  return desktop.browser.newContext({ viewport: { width: 1100, height: 900 }, deviceScaleFactor: 1 });
}

/** Appends a bundle hash to the transparency log, with its operator token (P7). */
export function appendToLog(logUrl: string, token: string, bundleHash: string): Promise<Response> {
  return fetch(`${logUrl}/add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ bundle_hash: bundleHash }),
  });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Watched {
  readonly page: Page;
  /** CSP violations seen by the page (securitypolicyviolation events and console reports). */
  readonly cspViolations: string[];
  /** Uncaught page errors. */
  readonly pageErrors: string[];
}

/** A page whose CSP violations and errors are recorded from the first script on. */
export async function watchedPage(context: BrowserContext): Promise<Watched> {
  const page = await context.newPage();
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];
  await page.exposeFunction('__reportCsp', (text: string) => cspViolations.push(text));
  // Injected by the browser itself (not subject to the page's CSP), before any page script runs.
  await page.addInitScript({
    content:
      "document.addEventListener('securitypolicyviolation', (e) => window.__reportCsp(e.violatedDirective + ' blocked ' + e.blockedURI));",
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { page, cspViolations, pageErrors };
}

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: number;
}

/** Runs axe-core in the page (evaluated through DevTools, so the page's CSP does not apply to it). */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run();
    return result.violations as Array<{ id: string; impact: string | null; help: string; nodes: unknown[] }>;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
}

/**
 * Full-page screenshot for the run; the docs copy (SAVE_DOC_SCREENSHOTS=1) is one viewport, scrolled to
 * `focus` when given, so the committed images stay small.
 */
export async function screenshot(page: Page, name: string, focus?: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
  if (process.env['SAVE_DOC_SCREENSHOTS'] === '1') {
    mkdirSync(join(ROOT, 'docs', 'screenshots'), { recursive: true });
    if (focus) await page.locator(focus).first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ROOT, 'docs', 'screenshots', `${name}.png`) });
    await page.evaluate('window.scrollTo(0, 0)');
  }
}
