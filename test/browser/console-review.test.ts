// The verify page reviewed as an attacker would use it (P220): a bundle file whose bytes the service refuses must
// not be shown as verified because the page read it leniently. Real verification service in-process, bundles built
// and signed by core, Debian's Chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replacementCharAsFF } from '../../packages/testing/src/invalid-utf8.ts';
import { type RunningApp, sampleBundle, startApp } from '../../services/verification/src/test-support.ts';
import { type Desktop, openDesktop, watchedPage } from './harness.ts';

type Json = Record<string, unknown>;

let desktop: Desktop;
let verification: RunningApp;

beforeAll(async () => {
  verification = await startApp();
  desktop = await openDesktop();
});

afterAll(async () => {
  await desktop?.close();
  await verification?.close();
});

async function chooseFile(name: string, buffer: Buffer) {
  const watched = await watchedPage(desktop.context);
  const { page } = watched;
  await page.goto(`${verification.url}/`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.setInputFiles('#bundle-file', { name, mimeType: 'application/json', buffer });
  await page.locator('#status', { hasText: name }).waitFor();
  await page.click('#verify-button');
  return watched;
}

describe('a bundle file is judged by its own bytes (P220)', () => {
  // Signed over a note holding U+FFFD; the file then holds FF where the signed text has EF BF BD. The service,
  // sent the file's bytes, refuses them (invalid UTF-8); a lenient decoder turns FF back into U+FFFD and the
  // signature holds over the text it made: one verdict for bytes nobody signed.
  const signed = () =>
    sampleBundle({
      tier: 'standard',
      entries: 2,
      hooks: {
        entry: (entry: Json, i: number) => {
          if (i === 0) entry['evidence'] = { ...(entry['evidence'] as Json), note: 'before\uFFFDafter' };
        },
      },
    }).signed_bundle;

  it('a JSON file with bytes that are not UTF-8 is refused, as the service refuses those bytes', async () => {
    const bytes = replacementCharAsFF(Buffer.from(JSON.stringify({ signed_bundle: signed() }), 'utf8'));
    // What core's service says of the file itself.
    const direct = await fetch(`${verification.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bytes,
    });
    expect(direct.status).toBe(400);
    const { page, pageErrors } = await chooseFile('mangled.json', bytes);
    // Settled: either a verdict is drawn or the status line has said why there is none.
    await expect
      .poll(
        async () =>
          (await page.locator('#verdict').count()) > 0 ||
          !/Verifying|ready/.test((await page.textContent('#status')) ?? ''),
        { timeout: 15_000 },
      )
      .toBe(true);
    const drawn =
      (await page.locator('#verdict').count()) > 0 ? await page.textContent('#verdict') : 'no verdict';
    expect(drawn, (await page.textContent('#status')) ?? '').toBe('no verdict');
    expect(await page.locator('#verdict').count()).toBe(0);
    expect(await page.textContent('#status')).toContain('not valid UTF-8');
    expect(await page.locator('.verdict.pass').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('the same bundle with its U+FFFD as signed is verified from a file (the control)', async () => {
    const bytes = Buffer.from(JSON.stringify(signed()), 'utf8');
    const { page, pageErrors } = await chooseFile('honest.json', bytes);
    await page.waitForSelector('#verdict');
    expect(await page.textContent('#verdict')).toContain('✔ VERIFIED');
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
