// The gatekeeping V2 checks, in order: size caps, bundle version, schemas (bundle E001, artifacts E002).
// DECISIONS D5–D7 (schema shapes, ≥1 audit entry), D11 (E003); PROTOCOL §6.10 step 1, §10.2.
import { formatSchemaIssues, type SchemaIssue, validateSchema } from '../../schema/index.ts';
import { describe, isRecord, type JsonRecord, prop, propArray, propRecord } from '../json.ts';
import type { Ledger } from '../ledger.ts';
import type { ResolvedVerifierSettings } from '../types.ts';
import { ARTIFACTS, type ArtifactField, type V2Parts } from './context.ts';

/** Caps before any per-entry work (E001): a request cannot make the verifier loop without bound. */
export function checkLimitsV2(ledger: Ledger, settings: ResolvedVerifierSettings, bundle: unknown): boolean {
  const entries = propArray(bundle, 'audit_entries');
  if (entries !== undefined && entries.length > settings.maxAuditEntries) {
    ledger.fail(
      'schema',
      'BUNDLE_SCHEMA_INVALID',
      `audit_entries holds ${entries.length} entries; this verifier accepts at most ${settings.maxAuditEntries}`,
    );
    return false;
  }
  const checkpoints = propArray(bundle, 'pq_checkpoints');
  if (checkpoints !== undefined && checkpoints.length > settings.maxCheckpoints) {
    ledger.fail(
      'schema',
      'BUNDLE_SCHEMA_INVALID',
      `pq_checkpoints holds ${checkpoints.length} checkpoints; this verifier accepts at most ${settings.maxCheckpoints}`,
    );
    return false;
  }
  return true;
}

/** PROTOCOL §6.10 step 1: `bundle.dcp_bundle_version` must be `2.0`; policy may refuse 2.0 (D11). */
export function checkVersionV2(ledger: Ledger, settings: ResolvedVerifierSettings, bundle: unknown): boolean {
  const version = prop(bundle, 'dcp_bundle_version');
  if (version !== '2.0') {
    ledger.fail('version', 'VERSION_UNSUPPORTED', `Unsupported bundle version: ${describe(version)}`);
    return false;
  }
  if (!settings.acceptedVersions.includes('2.0')) {
    ledger.fail(
      'version',
      'VERSION_UNSUPPORTED',
      `Bundle version 2.0 is below min_accepted_version ${settings.policy.min_accepted_version}`,
    );
    return false;
  }
  return true;
}

const ENTRY_OR_CHECKPOINT = /^\/bundle\/(?:audit_entries|pq_checkpoints)\/\d+(?:\/|$)/;

/**
 * The `signed_bundle` schema (which includes the manifest, envelopes, audit entries and checkpoints),
 * then each payload against its artifact schema (the RPR as `blinded_rpr` when `blinded: true`).
 * Issues inside one audit entry or checkpoint are E002 (an artifact failing its schema); everything
 * else about the bundle's structure is E001. Returns the parts when every schema passes.
 */
export function checkSchemaV2(ledger: Ledger, signed: unknown): V2Parts | undefined {
  const verdict = validateSchema('v2', 'signed_bundle', signed);
  if (!verdict.valid) {
    const structural: SchemaIssue[] = [];
    const artifact: SchemaIssue[] = [];
    for (const issue of verdict.issues)
      (ENTRY_OR_CHECKPOINT.test(issue.path) ? artifact : structural).push(issue);
    if (structural.length > 0) {
      ledger.fail('schema', 'BUNDLE_SCHEMA_INVALID', `signed_bundle: ${formatSchemaIssues(structural, 8)}`);
    }
    if (artifact.length > 0) {
      ledger.fail('schema', 'ARTIFACT_SCHEMA_INVALID', `signed_bundle: ${formatSchemaIssues(artifact, 8)}`);
    }
    return undefined;
  }
  // The schema guarantees these shapes; the readers stay defensive anyway.
  const signedRecord = signed as JsonRecord;
  const bundle = propRecord(signedRecord, 'bundle');
  const signature = propRecord(signedRecord, 'signature');
  const manifest = propRecord(bundle, 'manifest');
  const entries = propArray(bundle, 'audit_entries');
  if (bundle === undefined || signature === undefined || manifest === undefined || entries === undefined) {
    ledger.fail(
      'schema',
      'BUNDLE_SCHEMA_INVALID',
      'signed_bundle: bundle, signature, manifest or audit_entries missing',
    );
    return undefined;
  }
  if (entries.length === 0) {
    ledger.fail('schema', 'BUNDLE_SCHEMA_INVALID', 'audit_entries must hold at least one entry (D7)');
    return undefined;
  }
  const envelopes = {} as Record<ArtifactField, JsonRecord>;
  let payloadsValid = true;
  for (const { field } of ARTIFACTS) {
    const envelope = propRecord(bundle, field);
    const payload = propRecord(envelope, 'payload');
    if (envelope === undefined || payload === undefined) {
      ledger.fail('schema', 'BUNDLE_SCHEMA_INVALID', `${field}: missing payload`);
      payloadsValid = false;
      continue;
    }
    envelopes[field] = envelope;
    const schemaName =
      field === 'responsible_principal_record' && prop(payload, 'blinded') === true ? 'blinded_rpr' : field;
    const result = validateSchema('v2', schemaName, payload);
    if (!result.valid) {
      ledger.fail(
        'schema',
        'ARTIFACT_SCHEMA_INVALID',
        `${field}.payload (${schemaName}): ${formatSchemaIssues(result.issues, 8)}`,
      );
      payloadsValid = false;
    }
  }
  if (!payloadsValid) return undefined;
  const checkpoints = propArray(bundle, 'pq_checkpoints') ?? [];
  return {
    signed: signedRecord,
    bundle,
    signature,
    manifest,
    envelopes,
    entries: entries.filter(isRecord),
    checkpoints: checkpoints.filter(isRecord),
  };
}
