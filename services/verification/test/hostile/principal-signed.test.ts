// P490 over HTTP against the real verification service: a stranger's V2 bundle carries another agent's public,
// principal-signed RPR (copied from any bundle that agent showed) beside the stranger's own passport and is signed by
// that passport's keys. Every signature holds (D8 finds the kid in the passport first), and SDK bundles are signed by
// passport keys too, so the answer stays `verified: true`; it must say that no key of the principal signed the bundle.
// POST /verify and POST /verify/batch, JSON and CBOR.
import { borrowedRprBundle } from '@proto/core/testing';
import { decodeCbor, encodeCbor } from '@proto/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';

type Json = Record<string, unknown>;
type Format = 'json' | 'cbor';

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

async function answer(path: '/verify' | '/verify/batch', body: Json, format: Format): Promise<Json> {
  const batch = path === '/verify/batch';
  const type =
    format === 'cbor'
      ? batch
        ? 'application/cbor-seq'
        : 'application/cbor'
      : batch
        ? 'application/x-ndjson'
        : 'application/json';
  const res = await fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': type, accept: type },
    body: format === 'cbor' ? encodeCbor(body) : `${JSON.stringify(body)}${batch ? '\n' : ''}`,
  });
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  return (format === 'cbor' ? decodeCbor(bytes) : JSON.parse(bytes.toString('utf8'))) as Json;
}

const agentOnly = (json: Json) =>
  ((json['warnings'] as string[] | undefined) ?? []).filter((w) => w.includes('signed by agent keys only'));

const CASES = (['/verify', '/verify/batch'] as const).flatMap((path) =>
  (['json', 'cbor'] as const).map((format) => [path, format] as const),
);

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
