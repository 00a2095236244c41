// Validates VerifierOptions and resolves every effective setting (defaults, policy members, precedence).
// SPEC.md verification-service configuration; DECISIONS D1 (profile), D8–D11; PROTOCOL §6.8 (policy members).
import { type CryptoBackend, selectCryptoBackend } from '../crypto/index.ts';
import { isVerificationMode } from '../policy/modes.ts';
import {
  DEFAULT_VERIFIER_POLICY,
  type ParsedVerifierPolicy,
  parseVerifierPolicy,
  versionAccepted,
} from '../policy/verifier-policy.ts';
import { findProfile, type ProtocolProfile } from '../profile.ts';
import { coreError, err, ok, type Result } from '../result.ts';
import { DEFAULT_ATTESTATION_MAX_AGE_MS } from '../revocation/attestation.ts';
import { isRecord } from './json.ts';
import type { BundleVersion, ResolvedVerifierSettings, VerifierOptions } from './types.ts';

export const DEFAULT_MAX_AUDIT_ENTRIES = 10_000;
export const DEFAULT_MAX_CHECKPOINTS = 10_000;
export const DEFAULT_MAX_KEY_AGE_DAYS = 365;
/** DEFAULT_ATTESTATION_MAX_AGE_MS in days, as ATTESTATION_MAX_AGE_DAYS and `--attestation-max-age-days` count. */
export const DEFAULT_ATTESTATION_MAX_AGE_DAYS = DEFAULT_ATTESTATION_MAX_AGE_MS / 86_400_000;

/** What a Verifier runs with: the plain settings plus the objects that cannot be serialised. */
export interface VerifierRuntime {
  readonly settings: ResolvedVerifierSettings;
  readonly profile: ProtocolProfile;
  readonly backend: CryptoBackend;
  readonly clock: () => Date;
}

const KNOWN_OPTIONS: ReadonlySet<string> = new Set([
  'profile',
  'mode',
  'policy',
  'requireSessionBinding',
  'requireCompositeBinding',
  'maxKeyAgeDays',
  'attestationMaxAgeDays',
  'allowV1Bundles',
  'checkpointInterval',
  'maxAuditEntries',
  'maxCheckpoints',
  'requireSessionExpiry',
  'requireAudienceBinding',
  'verifierId',
  'requirePrincipalSignature',
  'backend',
  'clock',
]);

function isBackend(value: unknown): value is CryptoBackend {
  return (
    isRecord(value) &&
    typeof value['verify'] === 'function' &&
    typeof value['name'] === 'string' &&
    Array.isArray(value['algorithms'])
  );
}

function intOption(
  options: Readonly<Record<string, unknown>>,
  key: string,
  min: number,
  problems: string[],
): number | undefined {
  const value = options[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    problems.push(`${key} must be an integer >= ${min}`);
    return undefined;
  }
  return value;
}

function boolOption(
  options: Readonly<Record<string, unknown>>,
  key: string,
  problems: string[],
): boolean | undefined {
  const value = options[key];
  if (value === undefined || typeof value === 'boolean') return value;
  problems.push(`${key} must be true or false`);
  return undefined;
}

/**
 * Checks every option and fills defaults: profile `proto`, mode `hybrid_preferred`, SPEC.md's default
 * policy, session and composite binding required, keys at most 365 days old, V1 accepted, at most
 * 10,000 audit entries and 10,000 checkpoints. An option given explicitly wins over the same member
 * of the policy (`require_session_binding`, `require_composite_binding`, `max_key_age_days`,
 * `allow_v1_bundles`), which wins over the default. Never throws.
 */
export function resolveVerifierSettings(input: VerifierOptions | undefined): Result<VerifierRuntime> {
  const options: Readonly<Record<string, unknown>> = (input ?? {}) as Readonly<Record<string, unknown>>;
  if (!isRecord(options))
    return err(coreError('POLICY_VIOLATION', 'Invalid verifier options: expected an object'));
  const problems: string[] = [];
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) problems.push(`unknown option ${key}`);
  }

  const profileName = options['profile'] ?? 'proto';
  const profile = typeof profileName === 'string' ? findProfile(profileName) : undefined;
  if (profile === undefined) problems.push(`profile must be "proto" or "dcp-ai", got ${String(profileName)}`);

  const mode = options['mode'] ?? 'hybrid_preferred';
  if (!isVerificationMode(mode)) {
    problems.push('mode must be one of classical_only, hybrid_preferred, hybrid_required, pq_only');
  }

  let parsed: ParsedVerifierPolicy = { policy: DEFAULT_VERIFIER_POLICY, advisoryRejectedAlgs: [] };
  if (options['policy'] !== undefined) {
    const result = parseVerifierPolicy(options['policy']);
    if (result.ok) parsed = result.value;
    else problems.push(result.error.message);
  }

  const requireSessionBinding = boolOption(options, 'requireSessionBinding', problems);
  const requireCompositeBinding = boolOption(options, 'requireCompositeBinding', problems);
  const allowV1Bundles = boolOption(options, 'allowV1Bundles', problems);
  const requireSessionExpiry = boolOption(options, 'requireSessionExpiry', problems);
  const requireAudienceBinding = boolOption(options, 'requireAudienceBinding', problems);
  const requirePrincipalSignature = boolOption(options, 'requirePrincipalSignature', problems);
  const maxKeyAgeDays = intOption(options, 'maxKeyAgeDays', 1, problems);
  const attestationMaxAgeDays = intOption(options, 'attestationMaxAgeDays', 1, problems);
  const checkpointInterval = intOption(options, 'checkpointInterval', 1, problems);
  const maxAuditEntries = intOption(options, 'maxAuditEntries', 1, problems);
  const maxCheckpoints = intOption(options, 'maxCheckpoints', 0, problems);

  const verifierId = options['verifierId'];
  if (
    verifierId !== undefined &&
    (typeof verifierId !== 'string' || verifierId.length === 0 || verifierId.length > 256)
  ) {
    problems.push('verifierId must be a non-empty string of at most 256 characters');
  }
  if (requireAudienceBinding === true && verifierId === undefined) {
    problems.push('requireAudienceBinding needs verifierId (the identity intended_verifier must name)');
  }

  const backendOption = options['backend'];
  if (backendOption !== undefined && !isBackend(backendOption)) {
    problems.push('backend must be a CryptoBackend (name, algorithms, verify)');
  }
  const clockOption = options['clock'];
  if (clockOption !== undefined && typeof clockOption !== 'function')
    problems.push('clock must be a function');

  if (problems.length > 0 || profile === undefined || !isVerificationMode(mode)) {
    return err(coreError('POLICY_VIOLATION', `Invalid verifier options: ${problems.join('; ')}`));
  }

  let backend: CryptoBackend;
  try {
    backend = isBackend(backendOption) ? backendOption : selectCryptoBackend('auto');
  } catch (error) {
    return err(coreError('ALGORITHM_UNAVAILABLE', `No crypto backend available: ${String(error)}`));
  }

  const policy = parsed.policy;
  const v1 = allowV1Bundles ?? parsed.allowV1Bundles ?? true;
  const acceptedVersions: BundleVersion[] = [];
  if (v1 && versionAccepted(policy, '1.0')) acceptedVersions.push('1.0');
  if (versionAccepted(policy, '2.0')) acceptedVersions.push('2.0');

  const settings: ResolvedVerifierSettings = Object.freeze({
    profile: profile.name,
    mode,
    policy,
    advisoryRejectedAlgs: parsed.advisoryRejectedAlgs,
    requireSessionBinding: requireSessionBinding ?? parsed.requireSessionBinding ?? true,
    requireCompositeBinding: requireCompositeBinding ?? parsed.requireCompositeBinding ?? true,
    requireSessionExpiry: requireSessionExpiry ?? false,
    requireAudienceBinding: requireAudienceBinding ?? false,
    verifierId: typeof verifierId === 'string' ? verifierId : null,
    requirePrincipalSignature: requirePrincipalSignature ?? parsed.requirePrincipalSignature ?? false,
    maxKeyAgeDays: maxKeyAgeDays ?? parsed.maxKeyAgeDays ?? DEFAULT_MAX_KEY_AGE_DAYS,
    attestationMaxAgeDays: attestationMaxAgeDays ?? DEFAULT_ATTESTATION_MAX_AGE_DAYS,
    allowV1Bundles: v1,
    checkpointInterval: checkpointInterval ?? null,
    maxAuditEntries: maxAuditEntries ?? DEFAULT_MAX_AUDIT_ENTRIES,
    maxCheckpoints: maxCheckpoints ?? DEFAULT_MAX_CHECKPOINTS,
    acceptedVersions: Object.freeze(acceptedVersions),
    backend: backend.name,
  });
  const clock = typeof clockOption === 'function' ? (clockOption as () => Date) : () => new Date();
  return ok({ settings, profile, backend, clock });
}
