// The operator's VerifierPolicy (SPEC.md shape): defaults, parsing and validation into a typed value.
// SPEC.md "Verifier policy"; DECISIONS D10 (risk_overrides as tier floors), D11 (min_accepted_version gates V1).
import type { VerificationMode, VerifierPolicy } from '../bundle/types.ts';
import { coreError, err, ok, type Result } from '../result.ts';
import { formatSchemaIssues, validateSchema } from '../schema/index.ts';
import { isVerificationMode } from './modes.ts';

/** Bundle versions this verifier understands (SPEC.md Versioning 1). */
export const SUPPORTED_BUNDLE_VERSIONS: readonly string[] = Object.freeze(['1.0', '2.0']);
/** Values SPEC.md allows in accepted_algorithms. */
export const POLICY_SIGNING_ALGORITHMS: readonly string[] = Object.freeze([
  'ed25519',
  'ml-dsa-65',
  'ml-dsa-87',
  'slh-dsa-192f',
]);
export const POLICY_HASH_ALGORITHMS: readonly string[] = Object.freeze(['sha256', 'sha3-256']);

/** SPEC.md's defaults for risk_overrides; default_mode as the SDK default (PROTOCOL §6.8). */
export const DEFAULT_VERIFIER_POLICY: VerifierPolicy = Object.freeze({
  default_mode: 'hybrid_preferred',
  risk_overrides: Object.freeze({
    low: 'classical_only',
    medium: 'hybrid_preferred',
    high: 'hybrid_required',
  }),
  min_accepted_version: '1.0',
  accepted_algorithms: Object.freeze({
    signing: Object.freeze(['ed25519', 'ml-dsa-65']),
    hash: Object.freeze(['sha256', 'sha3-256']),
  }),
}) as VerifierPolicy;

/** `"1.0"` → [1, 0]; undefined when not `<major>.<minor>` with small decimal numbers. */
export function parseVersion(value: unknown): readonly [number, number] | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})$/.exec(value);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** Negative, zero or positive as a < b, a = b, a > b; undefined when either is not a version. */
export function compareVersions(a: string, b: string): number | undefined {
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (!x || !y) return undefined;
  return x[0] !== y[0] ? x[0] - y[0] : x[1] - y[1];
}

/** Whether a bundle version passes the policy's `min_accepted_version` (D11). */
export function versionAccepted(policy: VerifierPolicy, version: string): boolean {
  const c = compareVersions(version, policy.min_accepted_version);
  return c !== undefined && c >= 0;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A validated policy: SPEC.md's four fields, completed with the defaults, plus the upstream members
 * (PROTOCOL §6.8) the schema also allows. Those are settings the verifier options may also carry;
 * an explicit option wins over the policy, the policy over the default.
 */
export interface ParsedVerifierPolicy {
  readonly policy: VerifierPolicy;
  readonly requireSessionBinding?: boolean;
  readonly requireCompositeBinding?: boolean;
  readonly maxKeyAgeDays?: number;
  readonly allowV1Bundles?: boolean;
  /** P502: this stack's member `require_principal_signature` (not upstream's): see VerifierOptions. */
  readonly requirePrincipalSignature?: boolean;
  /** Algorithms an active advisory rejects: a signature using one fails (E401). */
  readonly advisoryRejectedAlgs: readonly string[];
}

function stringList(value: unknown, allowed: readonly string[], path: string, problems: string[]): string[] {
  if (!Array.isArray(value)) {
    problems.push(`${path} must be an array`);
    return [];
  }
  if (value.length === 0) problems.push(`${path} must not be empty`);
  const out: string[] = [];
  value.forEach((v, i) => {
    if (typeof v !== 'string' || !allowed.includes(v)) {
      problems.push(`${path}[${i}] must be one of ${allowed.join(', ')}`);
    } else if (!out.includes(v)) {
      out.push(v);
    }
  });
  return out;
}

function mode(
  value: unknown,
  fallback: VerificationMode,
  path: string,
  problems: string[],
): VerificationMode {
  if (value === undefined) return fallback;
  if (isVerificationMode(value)) return value;
  problems.push(`${path} must be one of classical_only, hybrid_preferred, hybrid_required, pq_only`);
  return fallback;
}

function optionalBoolean(value: unknown, path: string, problems: string[]): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  problems.push(`${path} must be a boolean`);
  return undefined;
}

/**
 * Validates a VerifierPolicy against the `verifier_policy` schema (only `default_mode` is required)
 * and checks every value: modes, a `min_accepted_version` some supported version satisfies, known
 * algorithm names. Missing SPEC.md fields take the defaults (`risk_overrides` key by key). When
 * `accepted_algorithms` is absent, the upstream `accepted_classical_algs`/`accepted_pq_algs` give the
 * signing list (their `accepted_hash_algs` is ignored: upstream never enforces it and its default
 * omits sha3-256). Returns frozen values; never throws.
 */
export function parseVerifierPolicy(value: unknown): Result<ParsedVerifierPolicy> {
  if (!isPlainObject(value)) {
    return err(coreError('POLICY_VIOLATION', 'Invalid verifier policy: expected a JSON object'));
  }
  const problems: string[] = [];
  const schema = validateSchema('v2', 'verifier_policy', value);
  if (!schema.valid) problems.push(`schema: ${formatSchemaIssues(schema.issues, 5)}`);

  const defaults = DEFAULT_VERIFIER_POLICY;
  const defaultMode = mode(value['default_mode'], defaults.default_mode, 'default_mode', problems);
  if (value['default_mode'] === undefined) problems.push('default_mode is required');

  const overrides = value['risk_overrides'];
  let riskOverrides: VerifierPolicy['risk_overrides'] = defaults.risk_overrides;
  if (overrides !== undefined) {
    if (isPlainObject(overrides)) {
      riskOverrides = {
        low: mode(overrides['low'], defaults.risk_overrides.low, 'risk_overrides.low', problems),
        medium: mode(overrides['medium'], defaults.risk_overrides.medium, 'risk_overrides.medium', problems),
        high: mode(overrides['high'], defaults.risk_overrides.high, 'risk_overrides.high', problems),
      };
    } else {
      problems.push('risk_overrides must be an object with keys low, medium, high');
    }
  }

  const minVersionRaw = value['min_accepted_version'];
  const minVersion = minVersionRaw === undefined ? defaults.min_accepted_version : minVersionRaw;
  if (parseVersion(minVersion) === undefined) {
    problems.push('min_accepted_version must be a version of the form <major>.<minor>, e.g. "1.0"');
  } else if (!SUPPORTED_BUNDLE_VERSIONS.some((v) => (compareVersions(v, minVersion as string) ?? -1) >= 0)) {
    problems.push(`min_accepted_version ${String(minVersion)} is above every supported version (1.0, 2.0)`);
  }

  const algorithms = value['accepted_algorithms'];
  let signing: string[] = [...defaults.accepted_algorithms.signing];
  let hash: string[] = [...defaults.accepted_algorithms.hash];
  if (algorithms !== undefined) {
    if (isPlainObject(algorithms)) {
      if (algorithms['signing'] !== undefined) {
        signing = stringList(
          algorithms['signing'],
          POLICY_SIGNING_ALGORITHMS,
          'accepted_algorithms.signing',
          problems,
        );
      }
      if (algorithms['hash'] !== undefined) {
        hash = stringList(algorithms['hash'], POLICY_HASH_ALGORITHMS, 'accepted_algorithms.hash', problems);
      }
    } else {
      problems.push('accepted_algorithms must be an object with arrays signing and hash');
    }
  } else if (value['accepted_classical_algs'] !== undefined || value['accepted_pq_algs'] !== undefined) {
    const upstream = [value['accepted_classical_algs'] ?? [], value['accepted_pq_algs'] ?? []].flat();
    signing = upstream.filter(
      (a): a is string => typeof a === 'string' && POLICY_SIGNING_ALGORITHMS.includes(a),
    );
    if (signing.length === 0)
      problems.push('accepted_classical_algs/accepted_pq_algs name no known signing algorithm');
  }

  const requireSessionBinding = optionalBoolean(
    value['require_session_binding'],
    'require_session_binding',
    problems,
  );
  const requireCompositeBinding = optionalBoolean(
    value['require_composite_binding'],
    'require_composite_binding',
    problems,
  );
  const allowV1Bundles = optionalBoolean(value['allow_v1_bundles'], 'allow_v1_bundles', problems);
  const requirePrincipalSignature = optionalBoolean(
    value['require_principal_signature'],
    'require_principal_signature',
    problems,
  );
  const maxKeyAgeDays = value['max_key_age_days'];
  if (
    maxKeyAgeDays !== undefined &&
    !(Number.isSafeInteger(maxKeyAgeDays) && (maxKeyAgeDays as number) >= 1)
  ) {
    problems.push('max_key_age_days must be an integer >= 1');
  }
  const advisory = value['advisory_rejected_algs'];
  const advisoryRejectedAlgs = Array.isArray(advisory)
    ? advisory.filter((a): a is string => typeof a === 'string')
    : [];

  if (problems.length > 0) {
    return err(
      coreError('POLICY_VIOLATION', `Invalid verifier policy: ${[...new Set(problems)].join('; ')}`),
    );
  }
  const policy = Object.freeze({
    default_mode: defaultMode,
    risk_overrides: Object.freeze({ ...riskOverrides }),
    min_accepted_version: minVersion as string,
    accepted_algorithms: Object.freeze({ signing: Object.freeze(signing), hash: Object.freeze(hash) }),
  }) as VerifierPolicy;
  return ok(
    Object.freeze({
      policy,
      ...(requireSessionBinding === undefined ? {} : { requireSessionBinding }),
      ...(requireCompositeBinding === undefined ? {} : { requireCompositeBinding }),
      ...(allowV1Bundles === undefined ? {} : { allowV1Bundles }),
      ...(requirePrincipalSignature === undefined ? {} : { requirePrincipalSignature }),
      ...(maxKeyAgeDays === undefined ? {} : { maxKeyAgeDays: maxKeyAgeDays as number }),
      advisoryRejectedAlgs: Object.freeze(advisoryRejectedAlgs),
    }),
  );
}
