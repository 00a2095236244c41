// Parsing of the revocation source settings: ISO 3166 jurisdictions, https-only sources (loopback excepted),
// userinfo split into Basic credentials, redacted URLs, the unlisted-jurisdiction allow-list. Issue 12.

import { redactUrl, withoutSecrets } from '@proto/clients';
import { testKey } from '@proto/core/testing';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.ts';
import { normaliseJurisdiction, parentJurisdiction } from './jurisdiction.ts';
import { parseRevocationSources, parseUnlistedJurisdictions, watermarkKey } from './revocation-client.ts';
import { isLoopbackHost } from './revocation-source-url.ts';

const KEY = testKey(12).publicKeyB64;
const sources = (entries: Record<string, string>) =>
  JSON.stringify(Object.fromEntries(Object.entries(entries).map(([j, url]) => [j, { url, keys: [KEY] }])));

describe('jurisdiction codes', () => {
  it('upper-cases ISO 3166 codes and rejects anything else', () => {
    expect(normaliseJurisdiction('us')).toBe('US');
    expect(normaliseJurisdiction('Us-ca')).toBe('US-CA');
    expect(normaliseJurisdiction('ZZ')).toBe('ZZ');
    for (const bad of [
      'usa',
      'U',
      'U S',
      ' US',
      'US ',
      'U$',
      'US-',
      'US-CALI',
      'EU-AI-Act-2025',
      '',
      42,
      null,
      'u\u017f', // long s: 'uſ'.toUpperCase() is 'US'
      '\u0131t', // dotless i: 'ıt'.toUpperCase() is 'IT'
      'US\n',
    ]) {
      expect(normaliseJurisdiction(bad), String(bad)).toBeUndefined();
    }
    expect(parentJurisdiction('US-CA')).toBe('US');
    expect(parentJurisdiction('US')).toBeUndefined();
  });
});

describe('REVOCATION_SOURCES', () => {
  it('keys sources by upper-case code and refuses a code given twice in two cases', () => {
    expect(Object.keys(parseRevocationSources(sources({ fr: 'https://rev.example.fr/l.json' })))).toEqual([
      'FR',
    ]);
    expect(() =>
      parseRevocationSources(sources({ fr: 'https://a.example/l.json', FR: 'https://b.example/l.json' })),
    ).toThrow(/configured twice/);
    expect(() => parseRevocationSources(sources({ France: 'https://a.example/l.json' }))).toThrow(
      ConfigError,
    );
  });

  it('refuses plain http: to a non-loopback host unless allowed, naming the URL without its secrets', () => {
    const remote = sources({ US: 'http://user:pw@rev.example.us/l.json?token=t0k' });
    let error: unknown;
    try {
      parseRevocationSources(remote);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain('http://rev.example.us/l.json');
    expect((error as ConfigError).message).not.toMatch(/pw|t0k|user/);
    expect(parseRevocationSources(remote, 'REVOCATION_SOURCES', { allowInsecureHttp: true })['US']?.url).toBe(
      'http://rev.example.us/l.json?token=t0k',
    );
    for (const url of [
      'http://127.0.0.1/l',
      'http://127.200.0.1:9/l',
      'http://[::1]/l',
      'http://LOCALHOST/l',
    ]) {
      expect(() => parseRevocationSources(sources({ US: url })), url).not.toThrow();
    }
    for (const url of [
      'http://128.0.0.1/l',
      'http://localhost.example/l',
      'http://[::2]/l',
      'http://10.0.0.1/l',
    ]) {
      expect(() => parseRevocationSources(sources({ US: url })), url).toThrow(/https/);
    }
  });

  it('moves userinfo into a Basic Authorization header and keeps the query for the fetch only', () => {
    const parsed = parseRevocationSources(
      sources({ US: 'https://us%40er:p%3Ass@rev.example.us/l.json?k=v' }),
    );
    expect(parsed['US']).toMatchObject({
      url: 'https://rev.example.us/l.json?k=v',
      authorization: `Basic ${Buffer.from('us@er:p:ss').toString('base64')}`,
    });
    expect(parseRevocationSources(sources({ US: 'https://rev.example.us/l.json' }))['US']).not.toHaveProperty(
      'authorization',
    );
    expect(watermarkKey('US', parsed['US']!)).toBe('US https://rev.example.us/l.json');
  });
});

describe('source URLs in messages', () => {
  it('redacts userinfo, query and fragment', () => {
    expect(redactUrl('https://u:p@h.example:8443/a/b.json?token=x#f')).toBe(
      'https://h.example:8443/a/b.json',
    );
    expect(redactUrl('not a url')).toBe('<invalid url>');
    const url = 'https://h.example/l.json?token=x';
    expect(withoutSecrets(`GET ${url} failed`, url)).toBe('GET https://h.example/l.json failed');
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('example.com')).toBe(false);
  });
});

describe('REVOCATION_UNLISTED_JURISDICTIONS', () => {
  it('parses a comma list of codes, upper-cased, without duplicates', () => {
    expect(parseUnlistedJurisdictions(undefined)).toEqual([]);
    expect(parseUnlistedJurisdictions('')).toEqual([]);
    expect(parseUnlistedJurisdictions(' zz, ZZ ,de-by,')).toEqual(['ZZ', 'DE-BY']);
    expect(() => parseUnlistedJurisdictions('ZZ, nowhere')).toThrow(ConfigError);
    expect(() => parseUnlistedJurisdictions('*')).toThrow(/REVOCATION_UNLISTED_JURISDICTIONS/);
  });
});
