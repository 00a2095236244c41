// The verify page of a real verification service in-process, in the desktop Chromium, as the suites that paste a
// bundle into it drive it (P191, P193, P197): one set-up and one way to paste (P223).
import { afterAll, beforeAll } from 'vitest';
import { type RunningApp, startApp } from '../../services/verification/src/test-support.ts';
import { type Desktop, openDesktop, type Watched, watchedPage } from './harness.ts';

export interface VerifyPage {
  readonly desktop: Desktop;
  readonly verification: RunningApp;
}

/** Starts the service and Chromium before the file's tests and closes both after them; read the fields in tests. */
export function useVerifyPage(): VerifyPage {
  const held = {} as { desktop: Desktop; verification: RunningApp };
  beforeAll(async () => {
    held.verification = await startApp();
    held.desktop = await openDesktop();
  });
  afterAll(async () => {
    await held.desktop?.close();
    await held.verification?.close();
  });
  return held;
}

/** A watched tab on the verify page, its modules loaded. */
export async function openVerifyPage(setup: VerifyPage): Promise<Watched> {
  const watched = await watchedPage(setup.desktop.context);
  await watched.page.goto(`${setup.verification.url}/`);
  await watched.page.waitForSelector('body[data-ready="true"]');
  return watched;
}

/** The verify page with `text` pasted and Verify pressed; the caller waits for what it expects. */
export async function pasteAndVerify(setup: VerifyPage, text: string): Promise<Watched> {
  const watched = await openVerifyPage(setup);
  await watched.page.fill('#bundle-text', text);
  await watched.page.click('#verify-button');
  return watched;
}

/** The verify page once it has drawn the timeline of `signed`. */
export async function verifyInPage(setup: VerifyPage, signed: unknown): Promise<Watched> {
  const watched = await pasteAndVerify(setup, JSON.stringify(signed));
  await watched.page.waitForSelector('#timeline');
  return watched;
}
