// Names and $ids of the published JSON Schemas (9 V1 files, 39 V2 files) shipped by @proto/schemas.
// PROTOCOL §10 (the schema artifacts), with our own base URI for every $id.

export type SchemaVersion = 'v1' | 'v2';

/** Base of every `$id`: `<base>/<version>/<name>.schema.json`. */
export const SCHEMA_BASE_URI = 'https://schemas.signed-bundles.org';

const V1_NAMES = [
  'agent_passport',
  'audit_entry',
  'citizenship_bundle',
  'human_confirmation',
  'intent',
  'policy_decision',
  'responsible_principal_record',
  'revocation_record',
  'signed_bundle',
] as const;

const V2_NAMES = [
  'advisory_declaration',
  'agent_passport',
  'algorithm_advisory',
  'arbitration_resolution',
  'audit_compaction',
  'audit_entry',
  'awareness_threshold',
  'blinded_rpr',
  'bundle_manifest',
  'commissioning_certificate',
  'composite_signature',
  'decommissioning_record',
  'delegation_mandate',
  'digital_testament',
  'dispute_record',
  'emergency_revocation',
  'human_confirmation',
  'intent',
  'interaction_record',
  'jurisdiction_attestation',
  'jurisprudence_bundle',
  'key_entry',
  'memory_transfer_manifest',
  'multi_party_authorization',
  'objection_record',
  'obligation_record',
  'policy_decision',
  'pq_checkpoint',
  'principal_mirror',
  'recovery_config',
  'responsible_principal_record',
  'revocation_record',
  'rights_declaration',
  'rights_violation_report',
  'signed_bundle',
  'signed_payload',
  'succession_record',
  'verifier_policy',
  'vitality_report',
] as const;

/** The schema files of each version, exactly as PROTOCOL §10 lists them. */
export const SCHEMA_NAMES: Readonly<Record<SchemaVersion, readonly string[]>> = Object.freeze({
  v1: Object.freeze([...V1_NAMES]),
  v2: Object.freeze([...V2_NAMES]),
});

const KNOWN: ReadonlySet<string> = new Set(
  (Object.keys(SCHEMA_NAMES) as SchemaVersion[]).flatMap((v) => SCHEMA_NAMES[v].map((n) => `${v}/${n}`)),
);

export function isSchemaVersion(value: unknown): value is SchemaVersion {
  return value === 'v1' || value === 'v2';
}

/** True when `<version>/<name>` is one of the 48 files (no `#fragment`). */
export function isSchemaFile(version: SchemaVersion, name: string): boolean {
  return KNOWN.has(`${version}/${name}`);
}

export function schemaId(version: SchemaVersion, name: string): string {
  return `${SCHEMA_BASE_URI}/${version}/${name}.schema.json`;
}
