// A cache or client that revalidates the list with If-Modified-Since alone must not be told 304 when a
// newer list (a new revocation) was issued in the same second as the Last-Modified it holds: HTTP dates
// have whole seconds, the lists do not. Brief "redservices"; P153.
import { listenOnPort0, tempDirSync } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRevocationApp } from '../../src/app.ts';
import { loadRevocationConfig } from '../../src/config.ts';
import { ISSUER, JURISDICTION, TOKEN } from '../../src/test-support.ts';

let now = Date.parse('2026-03-01T12:00:00.100Z');
let app: FastifyInstance;
let url: string;
let listUrl: string;
const dir = tempDirSync('revocation-ims');

beforeAll(async () => {
  const config = loadRevocationConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dir.dir,
    OPERATOR_TOKEN: TOKEN,
    ISSUER,
    JURISDICTION,
    MAX_EVENT_LOOP_DELAY_MS: '0',
  });
  app = await buildRevocationApp({ config, logger: false, timer: false, clock: () => new Date(now) });
  url = (await listenOnPort0(app)).url;
  listUrl = `${url}${app.protocolProfile.wellKnown.revocations}`;
});
afterAll(async () => {
  await app?.close();
  dir.remove();
});

async function list(headers: Record<string, string> = {}) {
  const response = await fetch(listUrl, { headers });
  const text = await response.text();
  return { response, list: text === '' ? undefined : (JSON.parse(text) as { list_number: number }) };
}

describe('If-Modified-Since revalidation of the revocation list', () => {
  it('a list issued later in the same second is a 200, not a 304', async () => {
    const first = await list();
    expect(first.list?.list_number).toBe(1);
    const lastModified = first.response.headers.get('last-modified') ?? '';
    expect(lastModified).not.toBe('');

    now += 500; // 12:00:00.600, the same whole second
    const revoked = await fetch(`${url}/revocations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: 'did:web:agent.example:revoked', reason: 'compromised' }),
    });
    expect(revoked.status).toBe(201);
    await revoked.arrayBuffer();

    const again = await list({ 'if-modified-since': lastModified });
    expect(again.response.status).toBe(200);
    expect(again.list?.list_number).toBe(2);
  });

  it('still answers 304 to the Last-Modified of the list it serves, once its second has passed', async () => {
    now += 2_000;
    const current = await list();
    const lastModified = current.response.headers.get('last-modified') ?? '';
    const again = await list({ 'if-modified-since': lastModified });
    expect(again.response.status).toBe(304);
    // The stated date is never after the service's clock (RFC 9110 §8.8.2.1).
    expect(Date.parse(lastModified)).toBeLessThanOrEqual(now);
  });
});

// RFC 9110 §13.1.3: a recipient MUST ignore If-Modified-Since unless it is a valid HTTP-date (§5.6.7: IMF-fixdate,
// or the obsolete RFC 850 and asctime forms, which a recipient MUST also accept); a date later than the server's
// clock is not a valid one either (RFC 2616 §14.25, kept by every cache since). Date.parse took any form it could
// guess, so a value no HTTP peer sends, or one set in the future, bought a 304 for a list that had changed (P212).
describe('If-Modified-Since is an HTTP-date or nothing (P212)', () => {
  const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
  const two = (n: number) => String(n).padStart(2, '0');

  it('answers 304 to each of the three HTTP-date forms of an instant after the list', async () => {
    now += 1_000;
    const at = new Date(Math.floor(now / 1000) * 1000);
    const imf = at.toUTCString();
    const [, day, month, year, time] = imf.split(' ') as [string, string, string, string, string];
    const rfc850 = `${DAYS[at.getUTCDay()]}, ${day}-${month}-${year.slice(2)} ${time} GMT`;
    const asctime = `${imf.slice(0, 3)} ${month} ${String(at.getUTCDate()).padStart(2, ' ')} ${time} ${year}`;
    for (const form of [imf, rfc850, asctime]) {
      const answer = await list({ 'if-modified-since': form });
      expect({ form, status: answer.response.status }).toEqual({ form, status: 304 });
    }
  });

  it('ignores any other form, and a date after its own clock: 200 with the list', async () => {
    now += 1_000;
    const at = new Date(Math.floor(now / 1000) * 1000);
    const imf = at.toUTCString();
    const wrongDay = `${imf.startsWith('Mon') ? 'Tue' : 'Mon'}${imf.slice(3)}`;
    const iso = at.toISOString();
    const hms = `${two(at.getUTCHours())}:${two(at.getUTCMinutes())}:${two(at.getUTCSeconds())}`;
    const forms = [
      iso, // RFC 3339, not an HTTP-date
      iso.slice(0, 10),
      imf.replace('GMT', '+0000'),
      imf.replace('GMT', 'UTC'),
      imf.replace(' GMT', ''),
      imf.toLowerCase(), // the grammar's names are case-sensitive
      imf.replace(/, 0(\d) /, ', $1 '), // one-digit day
      wrongDay, // the weekday does not name that date
      `${imf.slice(0, 16)} ${hms.replace(/^\d\d/, '24')} GMT`,
      new Date(now + 86_400_000).toUTCString(), // tomorrow, by the service's clock
      new Date(now + 365 * 86_400_000).toUTCString(),
    ];
    for (const form of forms) {
      const answer = await list({ 'if-modified-since': form });
      // Before P212: 304 for every form Date.parse could read (all but the 24:xx one), the list not sent.
      expect({ form, status: answer.response.status }).toEqual({ form, status: 200 });
      expect(answer.list?.list_number).toBeGreaterThanOrEqual(2);
    }
  });
});
