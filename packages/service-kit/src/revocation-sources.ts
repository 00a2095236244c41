// Where a verifier's revocation checker looks: the jurisdiction → list URL and trusted keys table read from
// the environment (REVOCATION_SOURCES, …), checked at start. D20, D21; issue 12 (every source consulted).

import { redactUrl } from '@proto/clients';
import { splitCredentials } from '@proto/clients/url-credentials';
import { parseTrustedKey, type TrustedKey, type TrustedKeyInput } from '@proto/core';
import { ConfigError } from './config.ts';
import { parseJsonVariable } from './json-variable.ts';
import { normaliseJurisdiction } from './jurisdiction.ts';
import { isLoopbackHost } from './revocation-source-url.ts';

/** Where a jurisdiction publishes its list and the Ed25519 keys trusted to sign it. */
export interface RevocationSource {
  /** Without userinfo (moved to `authorization`); a query is kept for the fetch but never shown. */
  readonly url: string;
  readonly keys: readonly TrustedKeyInput[];
  /** `Basic …` from the configured URL's userinfo, sent with each fetch. */
  readonly authorization?: string;
}

export type RevocationSources = Readonly<Record<string, RevocationSource>>;

/** Environment variables a verifier reads to check revocations and attestations (spread into defineEnv). */
export const REVOCATION_CLIENT_ENV = {
  REVOCATION_SOURCES: {
    type: 'string',
    description: 'JSON {"<jurisdiction>": {"url": "<list url>", "keys": ["<base64 Ed25519 key>", …]}}',
    // Its URLs can carry user-info: errors never print the value (issue 12 item 4).
    secret: true,
  },
  ATTESTATION_TRUSTED_KEYS: {
    type: 'string',
    description:
      'JSON {"<jurisdiction>": ["<base64 key>" | {public_key_b64, key_id?, valid_from?, valid_until?}, …]}',
  },
  REVOCATION_FETCH_TIMEOUT_MS: {
    type: 'integer',
    minimum: 100,
    default: 3000,
    description: 'Timeout of one revocation list fetch',
  },
  REVOCATION_UNLISTED_JURISDICTIONS: {
    type: 'string',
    default: '',
    description:
      'Comma-separated ISO 3166 codes a bundle may declare without a configured source at elevated/maximum (warning only)',
  },
  REVOCATION_ALLOW_INSECURE_HTTP: {
    type: 'boolean',
    default: false,
    description: 'Allow http: revocation sources on non-loopback hosts (default: https only)',
  },
} as const;

const JURISDICTION_PATTERN = /^[\w:.-]{2,64}$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseKeyList(value: unknown, where: string, variable: string): TrustedKey[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new ConfigError(`${where} must be a non-empty array of keys`, [variable]);
  }
  return value.map((entry, i) => {
    const parsed = parseTrustedKey(entry);
    if (!parsed.ok) throw new ConfigError(`${where}[${i}]: ${parsed.error.message}`, [variable]);
    return parsed.value;
  });
}

export interface ParseRevocationSourcesOptions {
  /** REVOCATION_ALLOW_INSECURE_HTTP: accept http: on non-loopback hosts (default false). */
  readonly allowInsecureHttp?: boolean;
}

/**
 * Parses REVOCATION_SOURCES: `{"<jurisdiction>": {"url": "https://…", "keys": ["<base64>", …]}}`. A key
 * may also be `{public_key_b64, key_id?, valid_from?, valid_until?}`. Unset or empty: no sources.
 * Jurisdictions are ISO 3166 codes, kept in upper case. URLs are https:, or http: on a loopback host
 * (any host with `allowInsecureHttp`); userinfo becomes a Basic Authorization header.
 * Throws ConfigError naming the variable.
 */
export function parseRevocationSources(
  text: string | undefined,
  variable = 'REVOCATION_SOURCES',
  options: ParseRevocationSourcesOptions = {},
): Record<string, RevocationSource> {
  if (text === undefined || text.trim() === '') return {};
  const value = parseJsonVariable(text, variable);
  if (!isObject(value))
    throw new ConfigError(`${variable} must be a JSON object keyed by jurisdiction`, [variable]);
  const sources: Record<string, RevocationSource> = {};
  for (const [code, source] of Object.entries(value)) {
    const jurisdiction = normaliseJurisdiction(code);
    if (jurisdiction === undefined) {
      throw new ConfigError(
        `${variable}: jurisdiction ${JSON.stringify(code)} is not an ISO 3166 code (e.g. "US", "US-CA")`,
        [variable],
      );
    }
    if (Object.hasOwn(sources, jurisdiction)) {
      throw new ConfigError(`${variable}: jurisdiction ${jurisdiction} is configured twice`, [variable]);
    }
    if (!isObject(source))
      throw new ConfigError(`${variable}.${jurisdiction} must be {url, keys}`, [variable]);
    const url = source['url'];
    let parsedUrl: URL | undefined;
    try {
      parsedUrl = typeof url === 'string' ? new URL(url) : undefined;
    } catch {
      parsedUrl = undefined;
    }
    if (parsedUrl === undefined || (parsedUrl.protocol !== 'https:' && parsedUrl.protocol !== 'http:')) {
      throw new ConfigError(`${variable}.${jurisdiction}.url must be an http(s) URL`, [variable]);
    }
    if (
      parsedUrl.protocol === 'http:' &&
      !isLoopbackHost(parsedUrl.hostname) &&
      options.allowInsecureHttp !== true
    ) {
      // The message names the source without its secrets (userinfo, query).
      throw new ConfigError(
        `${variable}.${jurisdiction}.url must be https: (${redactUrl(parsedUrl.href)} is plain http: to a ` +
          'non-loopback host; set REVOCATION_ALLOW_INSECURE_HTTP=true to allow it)',
        [variable, 'REVOCATION_ALLOW_INSECURE_HTTP'],
      );
    }
    const { url: fetchUrl, authorization } = splitCredentials(parsedUrl);
    sources[jurisdiction] = {
      url: fetchUrl,
      keys: parseKeyList(source['keys'], `${variable}.${jurisdiction}.keys`, variable),
      ...(authorization === undefined ? {} : { authorization }),
    };
  }
  return sources;
}

/**
 * Parses REVOCATION_UNLISTED_JURISDICTIONS: comma-separated ISO 3166 codes (upper-cased). Unset or empty:
 * none. Throws ConfigError naming the variable.
 */
export function parseUnlistedJurisdictions(
  text: string | undefined,
  variable = 'REVOCATION_UNLISTED_JURISDICTIONS',
): string[] {
  if (text === undefined) return [];
  const codes = text
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  return [
    ...new Set(
      codes.map((code) => {
        const normalised = normaliseJurisdiction(code);
        if (normalised === undefined) {
          throw new ConfigError(`${variable}: ${JSON.stringify(code)} is not an ISO 3166 code`, [variable]);
        }
        return normalised;
      }),
    ),
  ];
}

/**
 * Parses ATTESTATION_TRUSTED_KEYS: `{"<jurisdiction>": [<key>, …]}` where a key is a base64 Ed25519
 * public key or an entry of a `…-attestation-keys.json` document (`{key_id, public_key_b64,
 * valid_from, valid_until}`). Unset or empty: no trusted keys. Throws ConfigError.
 */
export function parseAttestationTrustedKeys(
  text: string | undefined,
  variable = 'ATTESTATION_TRUSTED_KEYS',
): Record<string, TrustedKey[]> {
  if (text === undefined || text.trim() === '') return {};
  const value = parseJsonVariable(text, variable);
  if (!isObject(value))
    throw new ConfigError(`${variable} must be a JSON object keyed by jurisdiction`, [variable]);
  const keys: Record<string, TrustedKey[]> = {};
  for (const [jurisdiction, list] of Object.entries(value)) {
    if (!JURISDICTION_PATTERN.test(jurisdiction)) {
      throw new ConfigError(`${variable}: jurisdiction ${JSON.stringify(jurisdiction)} is not a valid code`, [
        variable,
      ]);
    }
    keys[jurisdiction] = parseKeyList(list, `${variable}.${jurisdiction}`, variable);
  }
  return keys;
}

/** The name a source's highest list_number is stored under: jurisdiction and URL without its secrets. */
export function watermarkKey(jurisdiction: string, source: RevocationSource): string {
  return `${jurisdiction} ${redactUrl(source.url)}`;
}
