// The verify page checks the log checkpoint's witness quorum in the browser (issue 18 item 2; P61): the real log
// in-process behind @proto/anchor/testing's witnessed-log front (a fixture that appends cosignature lines the test
// signs with core's cosignCheckpoint, until the witness service is merged), the verification service passing its
// witness keys and k to the page through /console/config.json, Debian's Chromium, CSP strict.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LogTestServer, startLogServer } from '../../services/anchor/src/testing/log-server.ts';
import {
  cosignatureLine,
  startWitnessedLogFront,
  testWitnessSet,
  type WitnessedLogFront,
} from '../../services/anchor/src/testing/witnessed-log.ts';
import { type RunningApp, sampleBundle, startApp } from '../../services/verification/src/test-support.ts';
import { appendToLog, type Desktop, openDesktop, watchedPage } from './harness.ts';

const { a, b, c } = testWitnessSet();
const sample = sampleBundle({ tier: 'standard' });

let desktop: Desktop;
let log: LogTestServer;
let front: WitnessedLogFront;
let verification: RunningApp;

beforeAll(async () => {
  log = await startLogServer();
  front = await startWitnessedLogFront(log.url);
  expect((await appendToLog(log.url, log.token, sample.bundleHash)).status).toBe(201);
  await log.checkpoint();
  verification = await startApp({
    CONSOLE_LOG_URL: front.url,
    ANCHOR_VERIFY_LOG_URL: front.url,
    ANCHOR_VERIFY_LOG_KEY: log.verifierKey,
    ANCHOR_VERIFY_WITNESS_KEYS: [a, b, c].map((w) => w.vkey).join(','),
    ANCHOR_VERIFY_WITNESS_QUORUM: '2',
  });
  desktop = await openDesktop();
});

afterAll(async () => {
  await desktop?.close();
  await verification?.close();
  await front?.close();
  await log?.close();
});

async function inclusionShown(): Promise<{
  state: string | null;
  text: string | null;
  csp: string[];
  errors: string[];
}> {
  const { page, cspViolations, pageErrors } = await watchedPage(desktop.context);
  await page.goto(`${verification.url}/`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.fill('#bundle-text', JSON.stringify(sample.signed_bundle));
  await page.click('#verify-button');
  await page.waitForSelector('#log-inclusion[data-state]');
  const shown = {
    state: await page.getAttribute('#log-inclusion', 'data-state'),
    text: await page.textContent('#log-inclusion'),
    csp: cspViolations,
    errors: pageErrors,
  };
  await page.close();
  return shown;
}

describe('verify page with witnesses configured (k = 2 of a, b, c)', () => {
  it('gets the witness keys and k from the service config', async () => {
    const config = (await (await fetch(`${verification.url}/console/config.json`)).json()) as Record<
      string,
      unknown
    >;
    expect(config).toMatchObject({
      log_url: front.url,
      log_witnesses: [a.vkey, b.vkey, c.vkey],
      log_witness_quorum: 2,
    });
  });

  it('shows inclusion and the witnesses that cosigned when the quorum is met', async () => {
    front.setWitnessing((text) => cosignatureLine(text, a) + cosignatureLine(text, c));
    const shown = await inclusionShown();
    expect(shown.state, shown.text ?? '').toBe('included');
    expect(shown.text).toContain('cosigned by 2 of the 2 required witnesses: witness.test/a, witness.test/c');
    expect(shown.csp).toEqual([]);
    expect(shown.errors).toEqual([]);
  });

  it('shows a checkpoint lacking the quorum as refused, with the one witness that cosigned', async () => {
    front.setWitnessing((text) => cosignatureLine(text, b) + cosignatureLine(text, b, 1_790_000_003));
    const shown = await inclusionShown();
    expect(shown.state).toBe('fail');
    expect(shown.text).toContain(
      "The log's checkpoint lacks its witness quorum: cosigned by 1 of the 2 required witnesses: witness.test/b. Refused.",
    );
    expect(shown.csp).toEqual([]);
    expect(shown.errors).toEqual([]);
  });
});
