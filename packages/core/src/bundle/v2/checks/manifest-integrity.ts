// manifest_integrity: payload hashes, the manifest's four hashes, roots, counts, profile, manifest_hash.
// DECISIONS D5 (manifest verified as received, SPEC and SDK fields), D4/D7 (roots with counts); PROTOCOL §6.2–6.3.
import { CANONICALIZATION_PROFILE } from '../../../canonical/index.ts';
import { prefixedHash } from '../../../hash/index.ts';
import { describe, prop, propArray } from '../../json.ts';
import { ARTIFACTS, type V2Context } from '../context.ts';

const CHECK = 'manifest_integrity';

export function checkManifestIntegrity(ctx: V2Context): void {
  const { ledger } = ctx;
  const manifest = ctx.parts.manifest;

  // PROTOCOL §6.10 step 2: every envelope's payload_hash, then the manifest's copy of it.
  for (const spec of ARTIFACTS) {
    const artifact = ctx.artifacts[spec.field];
    if (prop(artifact.envelope, 'payload_hash') !== artifact.hash) {
      ledger.fail(
        CHECK,
        'MANIFEST_HASH_MISMATCH',
        `${spec.field}: payload_hash mismatch (computed ${artifact.hash})`,
      );
    }
    if (prop(manifest, spec.manifestField) !== artifact.hash) {
      ledger.fail(
        CHECK,
        'MANIFEST_HASH_MISMATCH',
        `Manifest ${spec.manifestField} mismatch: expected ${artifact.hash}`,
      );
    }
  }

  const profile = prop(manifest, 'canonicalization_profile');
  if (profile !== undefined && profile !== CANONICALIZATION_PROFILE) {
    ledger.fail(CHECK, 'VERSION_UNSUPPORTED', `Unknown canonicalization_profile: ${describe(profile)}`);
  }
  const version = prop(manifest, 'dcp_bundle_version');
  if (version !== undefined && version !== '2.0') {
    ledger.fail(
      CHECK,
      'VERSION_UNSUPPORTED',
      `Manifest dcp_bundle_version must be 2.0, got ${describe(version)}`,
    );
  }

  const primary = ctx.audit.fullRoot('sha256');
  const expectedRoot = primary === undefined ? undefined : prefixedHash('sha256', primary);
  if (prop(manifest, 'audit_merkle_root') !== expectedRoot) {
    ledger.fail(
      CHECK,
      'MERKLE_ROOT_MISMATCH',
      `Manifest audit_merkle_root mismatch (computed ${String(expectedRoot)})`,
    );
  }
  const secondaryField = prop(manifest, 'audit_merkle_root_secondary');
  if (secondaryField !== undefined) {
    const secondary = ctx.audit.fullRoot('sha3-256');
    const expected = secondary === undefined ? undefined : prefixedHash('sha3-256', secondary);
    if (secondaryField !== expected) {
      ledger.fail(
        CHECK,
        'MERKLE_ROOT_MISMATCH',
        `Manifest audit_merkle_root_secondary mismatch (computed ${String(expected)})`,
      );
    }
  }

  // D4/D5: every count that is present must match (closes the duplicated-last-leaf ambiguity).
  const count = prop(manifest, 'audit_count');
  if (count !== undefined && count !== ctx.entries.length) {
    ledger.fail(
      CHECK,
      'MANIFEST_HASH_MISMATCH',
      `Manifest audit_count=${describe(count)} but bundle has ${ctx.entries.length} entries`,
    );
  }
  const checkpointCount = prop(manifest, 'checkpoint_count');
  if (checkpointCount !== undefined && checkpointCount !== ctx.checkpoints.length) {
    ledger.fail(
      CHECK,
      'MANIFEST_HASH_MISMATCH',
      `Manifest checkpoint_count=${describe(checkpointCount)} but bundle has ${ctx.checkpoints.length} PQ checkpoints`,
    );
  }
  // D6: the listed checkpoint ids must be the bundle's, exactly and in order (a removed checkpoint
  // is a downgrade).
  const listed = propArray(manifest, 'pq_checkpoints');
  if (listed !== undefined) {
    const actual = ctx.checkpoints.map((c) => prop(c.value, 'checkpoint_id'));
    const same = listed.length === actual.length && listed.every((id, i) => id === actual[i]);
    if (!same) {
      ledger.fail(
        CHECK,
        'MANIFEST_HASH_MISMATCH',
        `Manifest pq_checkpoints lists ${listed.length} checkpoint id(s) that do not match the bundle's ${actual.length} checkpoint(s) in order`,
      );
    }
  }

  const manifestHash = prop(ctx.parts.signature, 'manifest_hash');
  if (manifestHash !== undefined && manifestHash !== ctx.manifestHash) {
    ledger.fail(
      CHECK,
      'MANIFEST_HASH_MISMATCH',
      `signature.manifest_hash does not match the manifest (computed ${ctx.manifestHash})`,
    );
  }
  ledger.settle(CHECK);
}
