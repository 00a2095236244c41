// Protocol profiles: every protocol name (contexts, error prefix, well-known files, anchor prefix) comes from here.
// DECISIONS D1; PROTOCOL.md naming map and §3 (the 18 registered domain-separation contexts).

export type ProfileName = 'proto' | 'dcp-ai';

export const PROFILE_NAMES: readonly ProfileName[] = ['proto', 'dcp-ai'];

/** The 18 registered context suffixes (PROTOCOL §3). The full string is `<contextPrefix><name>`. */
export const CONTEXT_NAMES = [
  'AgentPassport',
  'ResponsiblePrincipal',
  'Intent',
  'PolicyDecision',
  'AuditEvent',
  'Bundle',
  'Revocation',
  'KeyRotation',
  'ProofOfPossession',
  'JurisdictionAttestation',
  'HumanConfirmation',
  'MultiPartyAuth',
  'Lifecycle',
  'Succession',
  'Dispute',
  'Rights',
  'Delegation',
  'Awareness',
] as const;

export type ContextName = (typeof CONTEXT_NAMES)[number];

export interface ProtocolProfile {
  readonly name: ProfileName;
  /** Prefix of every domain-separation context, e.g. `PROTO.v2.` → `PROTO.v2.Bundle`. */
  readonly contextPrefix: string;
  /** Prefix of error codes, e.g. `PROTO-E` → `PROTO-E001`. */
  readonly errorPrefix: string;
  /** Short lowercase name used in well-known files, anchor payloads and metric names. */
  readonly shortName: string;
  readonly wellKnown: {
    readonly capabilities: string;
    readonly revocations: string;
    readonly attestationKeys: string;
  };
  /** Anchor payload prefixes (`proto:v1:` / `proto:v2:`), followed by 64 lowercase hex. */
  readonly anchorPrefix: { readonly v1: string; readonly v2: string };
  /** Prefix for Prometheus metric names (`proto_`). */
  readonly metricsPrefix: string;
}

function makeProfile(
  name: ProfileName,
  contextRoot: string,
  errorRoot: string,
  short: string,
): ProtocolProfile {
  return Object.freeze({
    name,
    contextPrefix: `${contextRoot}.v2.`,
    errorPrefix: `${errorRoot}-E`,
    shortName: short,
    wellKnown: Object.freeze({
      capabilities: `/.well-known/${short}-capabilities.json`,
      revocations: `/.well-known/${short}-revocations.json`,
      attestationKeys: `/.well-known/${short}-attestation-keys.json`,
    }),
    anchorPrefix: Object.freeze({ v1: `${short}:v1:`, v2: `${short}:v2:` }),
    metricsPrefix: `${short}_`,
  });
}

export const PROFILES: Readonly<Record<ProfileName, ProtocolProfile>> = Object.freeze({
  proto: makeProfile('proto', 'PROTO', 'PROTO', 'proto'),
  'dcp-ai': makeProfile('dcp-ai', 'DCP-AI', 'DCP', 'dcp'),
});

export const DEFAULT_PROFILE: ProtocolProfile = PROFILES.proto;

export function isProfileName(value: unknown): value is ProfileName {
  return value === 'proto' || value === 'dcp-ai';
}

/** Looks a profile up by name; undefined for an unknown name (callers report their own error). */
export function findProfile(name: string): ProtocolProfile | undefined {
  return isProfileName(name) ? PROFILES[name] : undefined;
}

export function contextString(profile: ProtocolProfile, context: ContextName): string {
  return profile.contextPrefix + context;
}

/** All context strings of a profile, in registry order. */
export function allContexts(profile: ProtocolProfile): string[] {
  return CONTEXT_NAMES.map((c) => profile.contextPrefix + c);
}
