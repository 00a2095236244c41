// The revocation service's environment: issuer, jurisdiction, list timing, keys and tokens, validated at boot.
// SPEC.md "Revocation service", "Attestation service"; DECISIONS D20 (list timing), D21 (keys), D22 (token).
import {
  ConfigError,
  defineEnv,
  loadConfig,
  normaliseJurisdiction,
  OPERATOR_TOKEN_ENV,
  parseJsonVariable,
  type SharedConfig,
} from '@proto/service-kit';
import { dateTimeInstant, isRfc3339Instant, parseTrustedKey, type TrustedKey } from './core.ts';

export const DEFAULT_ISSUER = 'urn:proto:revocation:unconfigured';
export const DEFAULT_JURISDICTION = 'ZZ';

/**
 * P482: the longest validity either document may be given, 100 years of 365 days. Both are added to the clock and
 * written as RFC 3339 times: without a bound, a value in milliseconds by mistake put next_update or expires_at past
 * year 9999, and the service booted to answer every POST /attest 400 (or died signing its first list).
 */
export const MAX_VALIDITY_S = 3_153_600_000;

export const REVOCATION_ENV = defineEnv({
  PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3003, description: 'HTTP port' },
  ISSUER: {
    type: 'string',
    minLength: 1,
    default: DEFAULT_ISSUER,
    description: 'Issuing authority identifier written into lists and attestations',
  },
  JURISDICTION: {
    type: 'string',
    pattern: '^[\\w:.\\-]{2,64}$',
    default: DEFAULT_JURISDICTION,
    description: 'Jurisdiction code of the authority (e.g. FR)',
  },
  LIST_MAX_AGE_S: {
    type: 'integer',
    minimum: 0,
    default: 300,
    description: 'Cache-Control max-age of the list, never beyond next_update',
  },
  LIST_VALIDITY_S: {
    type: 'integer',
    minimum: 2,
    maximum: MAX_VALIDITY_S,
    default: 86_400,
    description: 'next_update = issue time + this; the list is re-issued when half of it has passed',
  },
  ATTESTATION_VALIDITY_S: {
    type: 'integer',
    minimum: 60,
    maximum: MAX_VALIDITY_S,
    default: 2_592_000,
    description: 'expires_at = attested_at + this (default 30 days)',
  },
  REVOCATION_SIGNING_KEY: {
    type: 'string',
    description:
      'Ed25519 secret key (base64: 64-byte seed ‖ public key, or 32-byte seed); generated if unset',
  },
  ATTESTATION_SIGNING_KEY: {
    type: 'string',
    description: 'Ed25519 secret key for attestations (same forms); generated if unset',
  },
  ATTESTATION_PREVIOUS_KEYS: {
    type: 'string',
    description: 'JSON array of retired public keys [{public_key_b64, valid_from, valid_until, key_id?}]',
  },
  ATTESTATION_KEY_VALID_FROM: {
    type: 'string',
    description: 'valid_from published for the current attestation key (default: its first use)',
  },
  EMERGENCY_REGISTRATION: {
    type: 'string',
    enum: ['bundle', 'attested', 'operator'],
    default: 'attested',
    description:
      'Who may register emergency tokens: any verified bundle, only bundles this service attested, or only the operator',
  },
  EMERGENCY_MAX_PER_IP: {
    type: 'integer',
    minimum: 1,
    default: 5,
    description: 'Emergency revocation attempts one client IP may make per EMERGENCY_WINDOW_S (429 beyond)',
  },
  EMERGENCY_MAX_PER_AGENT: {
    type: 'integer',
    minimum: 1,
    default: 10,
    description:
      'Emergency revocation attempts against one agent id per EMERGENCY_WINDOW_S, all IPs together',
  },
  // P545: once an agent's attempts are spent (by anyone: all IPs together) its emergency revocation is refused for the
  // rest of the window; a window in the wrong unit or meant as "never" would lock it out for years.
  EMERGENCY_WINDOW_S: {
    type: 'integer',
    minimum: 1,
    maximum: 86_400,
    default: 60,
    description: 'Window of the two emergency revocation attempt limits',
  },
  EMERGENCY_REGISTRATIONS_PER_IP: {
    type: 'integer',
    minimum: 1,
    default: 30,
    description: 'Bundle registrations of emergency tokens one client IP may make per minute',
  },
  EMERGENCY_VERIFY_WORKERS: {
    type: 'integer',
    minimum: 1,
    maximum: 64,
    default: 1,
    description:
      'Threads that verify the bundles of POST /emergency-tokens (started on demand, stopped idle)',
  },
  EMERGENCY_VERIFY_THREAD_HEAP_MB: {
    type: 'integer',
    minimum: 16,
    maximum: 16_384,
    default: 128,
    description:
      'Old-generation heap cap of each POST /emergency-tokens verification thread in MB: a thread past it is ended alone and its registration answered 500 PROTO-E900 (P613)',
  },
  EMERGENCY_VERIFY_QUEUE_MAX: {
    type: 'integer',
    minimum: 0,
    maximum: 1000,
    default: 8,
    description: 'Registrations waiting for a verification thread; beyond: 503 PROTO-E702 with Retry-After',
  },
  ...OPERATOR_TOKEN_ENV,
});

export interface RevocationConfig extends SharedConfig {
  readonly ISSUER: string;
  readonly JURISDICTION: string;
  readonly LIST_MAX_AGE_S: number;
  readonly LIST_VALIDITY_S: number;
  readonly ATTESTATION_VALIDITY_S: number;
  readonly REVOCATION_SIGNING_KEY?: string;
  readonly ATTESTATION_SIGNING_KEY?: string;
  /** Parsed ATTESTATION_PREVIOUS_KEYS. */
  readonly ATTESTATION_PREVIOUS_KEYS: readonly TrustedKey[];
  readonly ATTESTATION_KEY_VALID_FROM?: string;
  readonly OPERATOR_TOKEN?: string;
  readonly EMERGENCY_REGISTRATION: 'bundle' | 'attested' | 'operator';
  readonly EMERGENCY_MAX_PER_IP: number;
  readonly EMERGENCY_MAX_PER_AGENT: number;
  readonly EMERGENCY_WINDOW_S: number;
  readonly EMERGENCY_REGISTRATIONS_PER_IP: number;
  readonly EMERGENCY_VERIFY_WORKERS: number;
  readonly EMERGENCY_VERIFY_QUEUE_MAX: number;
  readonly EMERGENCY_VERIFY_THREAD_HEAP_MB: number;
}

/** ATTESTATION_PREVIOUS_KEYS: retired keys stay published with a closed window, so old attestations verify. */
export function parsePreviousKeys(text: string | undefined): TrustedKey[] {
  if (text === undefined || text.trim() === '') return [];
  // Strictly: a member name twice (a key's valid_until written twice) is refused, not read last-wins (P483).
  const value = parseJsonVariable(text, 'ATTESTATION_PREVIOUS_KEYS');
  if (!Array.isArray(value)) {
    throw new ConfigError('ATTESTATION_PREVIOUS_KEYS must be a JSON array of keys', [
      'ATTESTATION_PREVIOUS_KEYS',
    ]);
  }
  return value.map((entry, i) => {
    const parsed = parseTrustedKey(entry);
    if (!parsed.ok) {
      throw new ConfigError(`ATTESTATION_PREVIOUS_KEYS[${i}]: ${parsed.error.message}`, [
        'ATTESTATION_PREVIOUS_KEYS',
      ]);
    }
    if (typeof parsed.value.valid_from !== 'string' || typeof parsed.value.valid_until !== 'string') {
      throw new ConfigError(
        `ATTESTATION_PREVIOUS_KEYS[${i}]: a retired key needs valid_from and valid_until`,
        ['ATTESTATION_PREVIOUS_KEYS'],
      );
    }
    return parsed.value;
  });
}

/** Validates the environment; throws ConfigError naming the variable at fault. */
export function loadRevocationConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
): RevocationConfig {
  const raw = loadConfig<Record<string, unknown> & SharedConfig>(REVOCATION_ENV, env);
  refuseUnmatchedJurisdiction(String(raw['JURISDICTION']));
  const validFrom = raw['ATTESTATION_KEY_VALID_FROM'];
  // A key's window starts no earlier than written, a leap second included (P178). Core's date-time reader: a
  // value Date.parse would only guess at ('1' as 2001, a bare date, a local time) stops the service (P244).
  const validFromMs = typeof validFrom === 'string' ? dateTimeInstant(validFrom, 'latest') : undefined;
  if (validFromMs !== undefined && !isRfc3339Instant(validFromMs)) {
    throw new ConfigError(
      'ATTESTATION_KEY_VALID_FROM must be an RFC 3339 date-time with its offset, such as 2026-03-07T10:00:00Z, in the years 0000 to 9999 (UTC)',
      ['ATTESTATION_KEY_VALID_FROM'],
    );
  }
  return {
    ...raw,
    ATTESTATION_PREVIOUS_KEYS: parsePreviousKeys(raw['ATTESTATION_PREVIOUS_KEYS'] as string | undefined),
    ...(validFromMs !== undefined ? { ATTESTATION_KEY_VALID_FROM: new Date(validFromMs).toISOString() } : {}),
  } as unknown as RevocationConfig;
}

/**
 * P486: verifiers look a list up by the upper-case ISO 3166 code (service-kit's normaliseJurisdiction) and refuse one
 * naming another jurisdiction, so a list published for "us" was refused by every verifier: below elevated that is
 * "revocation status not established", and a revoked agent's bundle verified. A code verifiers would read in
 * another case is refused with the spelling to use; codes that are not ISO 3166 style are left as they are.
 */
function refuseUnmatchedJurisdiction(jurisdiction: string): void {
  const normalised = normaliseJurisdiction(jurisdiction);
  if (normalised !== undefined && normalised !== jurisdiction) {
    throw new ConfigError(
      `JURISDICTION ${jurisdiction} is read by verifiers as ${normalised} (ISO 3166 codes are compared in upper case), and a list or attestation naming ${jurisdiction} would be refused: write JURISDICTION=${normalised}`,
      ['JURISDICTION'],
    );
  }
}
