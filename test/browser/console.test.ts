// The web console in a real browser (issue 17 item 5): the three real services in-process, Debian's Chromium,
// pages driven like a person would, asserting what they show; CSP, axe-core, keyboard, phone width and dark mode.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCbor } from '../../packages/service-kit/src/index.ts';
import { revoke, startService as startRevocation } from '../../services/revocation/src/test-support.ts';
import { buildTestLog } from '../../services/transparency-log/src/test-support.ts';
import { type RunningApp, sampleBundle, startApp } from '../../services/verification/src/test-support.ts';
import {
  appendToLog,
  type Desktop,
  openDesktop,
  screenshot,
  seriousAxeViolations,
  watchedPage,
} from './harness.ts';

type Json = Record<string, unknown>;

/** The log's appends need the operator token (P7). */
const LOG_TOKEN = 'console-test-log-operator-token-0001';

let desktop: Desktop;
let log: Awaited<ReturnType<typeof buildTestLog>>;
let logUrl: string;
let logDir: string;
let revocation: Awaited<ReturnType<typeof startRevocation>>;
let verification: RunningApp;
let valid: Json;
let validHash: string;
let tampered: Json;
let revokedAgent: string;

beforeAll(async () => {
  logDir = await mkdtemp(join(tmpdir(), 'proto-console-log-'));
  log = await buildTestLog(logDir, { CHECKPOINT_INTERVAL_MS: '50', OPERATOR_TOKEN: LOG_TOKEN });
  logUrl = await log.listen({ port: 0, host: '127.0.0.1' });
  revocation = await startRevocation();
  verification = await startApp({ CONSOLE_LOG_URL: logUrl });

  const sample = sampleBundle({ tier: 'elevated', entries: 4 });
  valid = sample.signed_bundle;
  validHash = sample.bundleHash;
  revokedAgent = 'agent-console-test-revoked';
  // The valid bundle is in the log; the signed checkpoint must cover it before the pages look.
  expect((await appendToLog(logUrl, LOG_TOKEN, validHash)).status).toBe(201);
  for (const i of [1, 2, 3]) await appendToLog(logUrl, LOG_TOKEN, `sha256:${String(i).repeat(64)}`);
  for (let waited = 0; ; waited += 50) {
    const signed = (await (await fetch(`${logUrl}/root/signed`)).json()) as { tree_size: number };
    if (signed.tree_size >= 4) break;
    if (waited > 10_000) throw new Error('no checkpoint covers the test entries');
    await new Promise((r) => setTimeout(r, 50));
  }
  // An audit entry changed after signing: the chain breaks at the next entry.
  tampered = structuredClone(valid);
  const entries = (tampered['bundle'] as { audit_entries: Json[] }).audit_entries;
  entries[1]!['outcome'] = 'something_else_happened';
  expect((await revoke(revocation, revokedAgent, 'key compromise')).status).toBe(201);

  desktop = await openDesktop();
});

afterAll(async () => {
  await desktop?.close();
  await verification?.close();
  await revocation?.close();
  await log?.close();
  if (logDir) await rm(logDir, { recursive: true, force: true });
});

describe('verify page (verification service at /)', () => {
  it('verifies a valid bundle pasted into the page and proves its log inclusion in the browser', async () => {
    const { page, cspViolations, pageErrors } = await watchedPage(desktop.context);
    const response = await page.goto(`${verification.url}/`);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForSelector('body[data-ready="true"]');
    await page.fill('#bundle-text', JSON.stringify(valid, null, 2));
    await page.click('#verify-button');
    await page.waitForSelector('#verdict');
    expect(await page.textContent('#verdict')).toContain('✔ VERIFIED');
    expect(await page.getAttribute('#verdict', 'class')).toContain('pass');
    expect(await page.textContent('#verdict')).toContain('tier elevated');
    expect(await page.textContent('#checks [data-check="hash_chain"]')).toContain('pass');
    expect(await page.textContent('#checks [data-check="pq_sig"]')).toContain('pass');
    // The tier's "why": the policy decision's resolved_tier (and the intent) set it.
    expect(await page.textContent('#tier-candidates')).toContain('sets the tier');
    expect(await page.textContent('#tier-candidates')).toContain('Verifier mode (hybrid_preferred)');
    // Signers: the agent's Ed25519 kid, with what it signed.
    const signers = await page.textContent('#signers');
    expect(signers).toContain(
      (valid['signature'] as { composite_sig: { classical: { kid: string } } }).composite_sig.classical.kid,
    );
    expect(signers).toContain('ml-dsa-65');
    expect(await page.locator('#timeline > li').count()).toBe(4);
    expect(await page.locator('#timeline > li.broken').count()).toBe(0);
    // PQ checkpoints over the timeline: elevated signs one per entry, each adding that entry.
    expect(await page.textContent('#timeline > li[data-entry="1"] .checkpoint-mark')).toContain(
      'PQ checkpoint 1: signs the trail #0–#1, adding #1',
    );
    expect(await page.textContent('#warnings')).toContain('Skipped checks');
    expect(await page.textContent('#bundle-hash')).toBe(validHash);
    await page.waitForSelector('#log-inclusion[data-state]');
    expect(await page.getAttribute('#log-inclusion', 'data-state')).toBe('included');
    expect(await page.textContent('#log-inclusion')).toContain('Included at index 0');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'verify-valid', '#verdict');
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('shows a tampered bundle as NOT VERIFIED, explains the failure and marks the chain break on the entry', async () => {
    const { page, cspViolations, pageErrors } = await watchedPage(desktop.context);
    await page.goto(`${verification.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.fill('#bundle-text', JSON.stringify(tampered));
    await page.click('#verify-button');
    await page.waitForSelector('#verdict');
    expect(await page.textContent('#verdict')).toContain('✘ NOT VERIFIED');
    expect(await page.getAttribute('#verdict', 'class')).toContain('fail');
    expect(await page.textContent('#checks [data-check="hash_chain"]')).toContain('fail');
    const failures = await page.textContent('#failures');
    expect(failures).toContain('PROTO-E200');
    expect(failures).toContain('Audit hash chain broken');
    expect(await page.getAttribute('#failures a[href*="E200"]', 'href')).toBe('/console/errors.html#E200');
    // Entry 1 was edited, so entry 2's prev_hash no longer matches: the break sits on entry 2.
    expect(await page.locator('#timeline > li.broken').count()).toBeGreaterThanOrEqual(1);
    expect(await page.getAttribute('#timeline > li.broken >> nth=0', 'data-entry')).toBe('2');
    await page.waitForSelector('#log-inclusion[data-state]');
    expect(await page.getAttribute('#log-inclusion', 'data-state')).toBe('missing');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'verify-tampered', '#timeline > li.broken');
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('verifies a CBOR file chosen with the file input, using only the keyboard', async () => {
    const { page, cspViolations } = await watchedPage(desktop.context);
    await page.goto(`${verification.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.setInputFiles('#bundle-file', {
      name: 'bundle.cbor',
      mimeType: 'application/cbor',
      buffer: Buffer.from(encodeCbor(valid)),
    });
    await page.locator('#status', { hasText: 'ready' }).waitFor();
    // Keyboard: Tab from the file input reaches the Verify button; Enter presses it.
    await page.focus('#bundle-file');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.id')).toBe('verify-button');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#verdict');
    expect(await page.textContent('#verdict')).toContain('✔ VERIFIED');
    expect(await page.textContent('#status')).toContain('CBOR');
    expect(await page.textContent('#bundle-hash')).toBe(validHash);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('refuses a CBOR file the service would refuse (a key twice), showing why and sending nothing', async () => {
    const { page, cspViolations, pageErrors } = await watchedPage(desktop.context);
    const posted: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posted.push(request.url());
    });
    await page.goto(`${verification.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    // {"signed_bundle": <the valid bundle>, "signed_bundle": 1}: a lenient reader keeps the last member.
    const key = Buffer.concat([Buffer.from([0x6d]), Buffer.from('signed_bundle')]);
    const bundle = encodeCbor(valid);
    await page.setInputFiles('#bundle-file', {
      name: 'twice.cbor',
      mimeType: 'application/cbor',
      buffer: Buffer.concat([Buffer.from([0xa2]), key, bundle, key, Buffer.from([0x01])]),
    });
    await page.locator('#status', { hasText: 'ready' }).waitFor();
    await page.click('#verify-button');
    await page
      .locator('#status', { hasText: 'This is not valid CBOR' })
      .waitFor({ timeout: 5000 })
      .catch(() => undefined);
    expect(await page.textContent('#status')).toBe(
      `This is not valid CBOR: duplicate map key "signed_bundle" at byte ${1 + key.length + bundle.length}`,
    );
    expect(posted).toEqual([]);
    expect(await page.locator('#verdict').count()).toBe(0);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('verifies a JSON file dropped on the page', async () => {
    const { page, cspViolations } = await watchedPage(desktop.context);
    await page.goto(`${verification.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    const dataTransfer = await page.evaluateHandle(
      `(() => { const dt = new DataTransfer(); dt.items.add(new File([${JSON.stringify(JSON.stringify(valid))}], 'bundle.json', { type: 'application/json' })); return dt; })()`,
    );
    await page.dispatchEvent('#dropzone', 'drop', { dataTransfer });
    await page.locator('#status', { hasText: 'bundle.json' }).waitFor();
    await page.click('#verify-button');
    await page.waitForSelector('#verdict');
    expect(await page.textContent('#verdict')).toContain('✔ VERIFIED');
    expect(await page.textContent('#bundle-hash')).toBe(validHash);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('verifies a V1 bundle and shows its own bundle_hash', async () => {
    const v1 = sampleBundle({ version: '1.0', tier: 'standard', entries: 3 });
    const { page, cspViolations, pageErrors } = await watchedPage(desktop.context);
    await page.goto(`${verification.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.fill('#bundle-text', JSON.stringify(v1.signed_bundle));
    await page.click('#verify-button');
    await page.waitForSelector('#verdict');
    expect(await page.textContent('#verdict')).toContain('✔ VERIFIED');
    expect(await page.textContent('#verdict')).toContain('version 1.0');
    expect(await page.textContent('#bundle-hash')).toBe(v1.bundleHash);
    expect(await page.locator('#timeline > li').count()).toBe(3);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('shows markup inside a bundle as text, never as markup', async () => {
    const hostile = structuredClone(valid);
    const entries = (hostile['bundle'] as { audit_entries: Json[] }).audit_entries;
    entries[0]!['outcome'] =
      '<img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script>';
    const { page, cspViolations } = await watchedPage(desktop.context);
    let dialogs = 0;
    page.on('dialog', async (dialog) => {
      dialogs++;
      await dialog.dismiss();
    });
    await page.goto(`${verification.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.fill('#bundle-text', JSON.stringify(hostile));
    await page.click('#verify-button');
    await page.waitForSelector('#timeline');
    expect(await page.textContent('#timeline > li[data-entry="0"] strong')).toContain('<img src=x');
    expect(await page.locator('#result img, #result script').count()).toBe(0);
    expect(await page.title()).not.toBe('pwned');
    expect(dialogs).toBe(0);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('serves its error-code reference and rejects bad input with a message, not a crash', async () => {
    const { page, cspViolations } = await watchedPage(desktop.context);
    await page.goto(`${verification.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.fill('#bundle-text', '{not json');
    await page.click('#verify-button');
    expect(await page.textContent('#status')).toContain('not valid JSON');
    await page.goto(`${verification.url}/console/errors.html#E200`);
    await page.waitForSelector('#E200');
    expect(await page.textContent('#E200')).toContain('Audit hash chain broken');
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  });
});

describe('log explorer (transparency-log service at /)', () => {
  it('shows the signed checkpoint and verifies an inclusion proof in the browser', async () => {
    const { page, cspViolations, pageErrors } = await watchedPage(desktop.context);
    await page.goto(`${logUrl}/`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.textContent('#checkpoint-signature')).toContain('verified in this browser');
    expect(await page.locator('#entries tbody tr').count()).toBe(4);
    await page.click('#entries tr[data-index="2"] button');
    await page.waitForSelector('#proof-result');
    expect(await page.getAttribute('#proof-result', 'data-ok')).toBe('true');
    expect(await page.locator('svg.proof-tree rect').count()).toBeGreaterThan(2);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'log-explorer', '#proof-result');
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('finds an entry by bundle hash', async () => {
    const { page } = await watchedPage(desktop.context);
    await page.goto(`${logUrl}/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.fill('#lookup-hash', validHash);
    await page.press('#lookup-hash', 'Enter');
    await page.waitForSelector('#proof-result');
    expect(await page.textContent('#lookup-status')).toContain('Found at index 0');
    expect(await page.getAttribute('#proof-result', 'data-ok')).toBe('true');
    await page.close();
  });

  it('rejects a proof the log altered in transit (the check really runs in the browser)', async () => {
    const { page } = await watchedPage(desktop.context);
    await page.route('**/proof/**', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { proof: string[] };
      body.proof[0] = body.proof[0]!.replace(/^./, (c) => (c === '0' ? '1' : '0'));
      await route.fulfill({ response, json: body });
    });
    await page.goto(`${logUrl}/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.click('#entries tr[data-index="1"] button');
    await page.waitForSelector('#proof-result');
    expect(await page.getAttribute('#proof-result', 'data-ok')).toBe('false');
    expect(await page.textContent('#proof-result')).toContain('differs from the checkpoint root');
    await page.close();
  });

  it('rejects a checkpoint whose signature does not verify', async () => {
    const { page } = await watchedPage(desktop.context);
    await page.route('**/root/signed', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { checkpoint: string };
      // Same signature, different tree size: the signed text changed.
      body.checkpoint = body.checkpoint.replace(/\n(\d+)\n/, (_m, n: string) => `\n${Number(n) + 1}\n`);
      await route.fulfill({ response, json: body });
    });
    await page.goto(`${logUrl}/`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.textContent('#checkpoint-signature')).toContain('does not verify');
    await page.close();
  });
});

describe('revocation viewer (revocation service at /)', () => {
  it('shows the signed list, verifies its signature in the browser and says it is fresh', async () => {
    const { page, cspViolations, pageErrors } = await watchedPage(desktop.context);
    await page.goto(`${revocation.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.getAttribute('#list-signature', 'data-ok')).toBe('true');
    expect(await page.textContent('#freshness-banner')).toContain('FRESH');
    expect(await page.textContent('#revoked')).toContain(revokedAgent);
    expect(await page.textContent('#revoked')).toContain('sha256:');
    expect(await page.textContent('#list')).toContain('did:web:revocation.example.fr');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'revocation-viewer');
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('says plainly when the list is past next_update (the browser clock two days ahead)', async () => {
    // page.clock is the context's clock: moved on the shared context, it would stay two days ahead for every
    // later test in this file. This one has a context of its own.
    const later = await desktop.browser.newContext();
    try {
      const { page } = await watchedPage(later);
      await page.clock.setFixedTime(new Date(Date.now() + 2 * 86_400_000));
      await page.goto(`${revocation.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      expect(await page.textContent('#freshness-banner')).toContain('STALE');
      expect(await page.getAttribute('#freshness-banner', 'class')).toContain('fail');
      // Stale is about time, not integrity: the signature still verifies.
      expect(await page.getAttribute('#list-signature', 'data-ok')).toBe('true');
    } finally {
      await later.close();
    }
  });

  it('flags a list altered in transit as INVALID', async () => {
    const { page } = await watchedPage(desktop.context);
    await page.route('**/.well-known/*-revocations.json', async (route) => {
      const response = await route.fetch();
      const list = (await response.json()) as { entries: unknown[] };
      list.entries = []; // someone drops the revocations
      await route.fulfill({ response, json: list });
    });
    await page.goto(`${revocation.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    // This page keeps the real time: no earlier test's clock is left on the shared context.
    expect(Math.abs((await page.evaluate(() => Date.now())) - Date.now())).toBeLessThan(60_000);
    expect(await page.getAttribute('#freshness-banner', 'data-state')).toBe('unverified');
    expect(await page.getAttribute('#list-signature', 'data-ok')).toBe('false');
    expect(await page.textContent('#list-signature')).toContain('does not verify');
    await page.close();
  });
});

describe('phone width and dark mode', () => {
  it('has no serious accessibility violation on any page at 390 px in dark mode', async () => {
    const phone = await desktop.browser.newContext({
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
      deviceScaleFactor: 1,
    });
    try {
      for (const [name, url] of [
        ['verify', `${verification.url}/`],
        ['log', `${logUrl}/`],
        ['revocation', `${revocation.url}/`],
      ] as const) {
        const { page, cspViolations } = await watchedPage(phone);
        await page.goto(url);
        await page.waitForSelector('body[data-ready="true"]');
        if (name === 'verify') {
          await page.fill('#bundle-text', JSON.stringify(tampered));
          await page.click('#verify-button');
          await page.waitForSelector('#verdict');
        }
        // Nothing wider than the screen: the page does not scroll sideways.
        const wide = await page.evaluate(
          "[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 392).slice(0, 5).map((e) => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))",
        );
        expect(wide, `${name}: elements wider than the screen`).toEqual([]);
        expect(
          await page.evaluate('document.documentElement.scrollWidth'),
          `${name}: ${await page.evaluate("[...document.querySelectorAll('body *')].filter((e) => e.scrollWidth > 392 || e.getBoundingClientRect().left < 0).slice(0, 5).map((e) => e.tagName + '#' + e.id + '.' + e.className + ' ' + e.scrollWidth + ' ' + Math.round(e.getBoundingClientRect().left)).join(', ')")}`,
        ).toBeLessThanOrEqual(390);
        expect(await seriousAxeViolations(page)).toEqual([]);
        await screenshot(page, `${name}-phone-dark`);
        expect(cspViolations).toEqual([]);
        await page.close();
      }
    } finally {
      await phone.close();
    }
  });
});
