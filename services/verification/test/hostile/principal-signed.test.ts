// P490 over HTTP against the real verification service: a stranger's V2 bundle carries another agent's public,
// principal-signed RPR (copied from any bundle that agent showed) beside the stranger's own passport and is signed by
// that passport's keys. Every signature holds (D8 finds the kid in the passport first), and SDK bundles are signed by
// passport keys too, so the answer stays `verified: true`; it must say that no key of the principal signed the bundle.
// POST /verify and POST /verify/batch, JSON and CBOR.
import { borrowedRprBundle } from '@proto/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';
import { ROUTES_AND_FORMATS, type VerifyPath, verifyAnswer, type WireFormat } from './verify-both-wires.ts';

const answer = (path: VerifyPath, body: Json, format: WireFormat) =>
  verifyAnswer(app.url, path, body, format);

type Json = Record<string, unknown>;

let app: RunningApp;
beforeAll(async () => {
  // The warning comes from core, before any store; DATABASE_URL, when set, runs the same on PostgreSQL.
  const database = process.env['DATABASE_URL'];
  app = await startApp({
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    ...(database === undefined ? {} : { DATABASE_URL: database }),
  });
});
afterAll(() => app?.close());

const fixture = borrowedRprBundle();

const agentOnly = (json: Json) =>
  ((json['warnings'] as string[] | undefined) ?? []).filter((w) => w.includes('signed by agent keys only'));

const CASES = ROUTES_AND_FORMATS;

describe('P490: a bundle signed by agent keys only, with a copied RPR', () => {
  it.each(CASES)('POST %s (%s): verified, with the warning', async (path, format) => {
    const json = await answer(path, { signed_bundle: fixture.stranger }, format);
    expect(json['verified'], JSON.stringify(json)).toBe(true);
    const warnings = agentOnly(json);
    expect(warnings, JSON.stringify(json)).toHaveLength(1);
    expect(warnings[0]).toContain(fixture.humanId);
    expect(warnings[0]).toContain(fixture.agentId);
    for (const kid of fixture.strangerKids) expect(warnings[0]).toContain(kid);
    expect(warnings[0]).toContain('its RPR may be a copy');
  });

  it.each(CASES)(
    "POST %s (%s): the victim's own principal-signed bundle, no such warning",
    async (path, format) => {
      const json = await answer(path, { signed_bundle: fixture.victim.signed_bundle }, format);
      expect(json['verified'], JSON.stringify(json)).toBe(true);
      expect(agentOnly(json)).toEqual([]);
    },
  );
});
