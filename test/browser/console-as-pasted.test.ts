// The verify page sends the JSON text as pasted (P193): the service's strict reading (duplicate keys, numbers with no
// finite value) judges the bytes the person holds, not the page's re-serialisation of what JSON.parse kept. Before,
// a text with a duplicate key showed VERIFIED here while the service and the CLI refuse the same text.
// Real verification service in-process, a bundle built by core; Debian's Chromium.
import { describe, expect, it } from 'vitest';
import { sampleBundle } from '../../services/verification/src/test-support.ts';
import { pasteAndVerify, useVerifyPage } from './verify-page.ts';

const setup = useVerifyPage();

async function verifyText(text: string) {
  const watched = await pasteAndVerify(setup, text);
  // Polled from here: the page's CSP refuses the string evaluation waitForFunction would use.
  await expect
    .poll(async () => watched.page.textContent('#status'), { timeout: 30_000 })
    .toMatch(/HTTP \d{3}/);
  return watched;
}

/** The service's answer to the text: HTTP 400 and a verdict that is not VERIFIED, naming the duplicate key. */
async function expectRefused(page: Awaited<ReturnType<typeof verifyText>>['page']) {
  expect(await page.textContent('#status')).toContain('HTTP 400');
  const verdict = (await page.locator('#verdict').count()) > 0 ? await page.textContent('#verdict') : '';
  expect(verdict).not.toContain('✔ VERIFIED');
  expect(await page.textContent('main')).toMatch(/duplicate/i);
}

describe('the verify page lets the service judge the text as pasted (P193)', () => {
  const signedText = () => JSON.stringify(sampleBundle({}).signed_bundle);

  it('a wrapped bundle given twice under "signed_bundle" is the service\'s refusal, not a verdict', async () => {
    const one = signedText();
    const { page, pageErrors } = await verifyText(`{"signed_bundle":${one},"signed_bundle":${one}}`);
    await expectRefused(page);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("a bare bundle with a member given twice (JSON.parse keeps the last) is the service's refusal", async () => {
    const one = signedText();
    const { page, pageErrors } = await verifyText(`{"bundle":null,${one.slice(1)}`);
    await expectRefused(page);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('the same bundle pasted once, bare or wrapped, still verifies (the control)', async () => {
    const one = signedText();
    for (const text of [one, `{"signed_bundle":${one}}`, `  \n{ "signed_bundle" : ${one} }\n`]) {
      const { page, pageErrors } = await verifyText(text);
      await page.waitForSelector('#verdict');
      expect(await page.textContent('#verdict')).toContain('✔ VERIFIED');
      expect(pageErrors).toEqual([]);
      await page.close();
    }
  });
});
