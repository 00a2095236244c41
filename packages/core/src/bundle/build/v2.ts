// Builds a V2 Signed Bundle: signed artifacts, chained audit trail, PQ checkpoints, manifest and the
// bundle signature over jcs(manifest). PROTOCOL §6.1–§6.6; DECISIONS D5, D6, D7, D8.
import { CANONICALIZATION_PROFILE } from '../../canonical/index.ts';
import { contextString } from '../../profile.ts';
import { signedV2BundleHashes } from '../bundle-hashes.ts';
import { identities, isoAt, KEY_VALIDITY_SECONDS, sessionNonce, uuidV4 } from './ids.ts';
import type { ResolvedOptions } from './options.ts';
import { compositeOver, jcsBytes, prefixed, type Signer, signedPayload, unwrap } from './sign.ts';
import type { ArtifactSet, BuiltBundle, JsonObject } from './types.ts';
import { artifactPayloadsV2 } from './v2-artifacts.ts';
import { auditDigests, auditEntriesV2, checkpointRanges, checkpointsV2, merkleRoot } from './v2-audit.ts';

/** pq_checkpoint_ref of the entries covered by spec-shape checkpoint `index` (they have no id). */
export function specCheckpointRef(index: number): string {
  return `pq_checkpoint:${index}`;
}

export function buildV2(o: ResolvedOptions): BuiltBundle {
  const nonce = sessionNonce(o.random);
  const ids = identities(o.principal, o.agent, nonce);
  const at = isoAt(o.now);
  const principalSigner: Signer = { backend: o.backend, keys: o.principal, classicalOnly: o.classicalOnly };
  const agentSigner: Signer = { backend: o.backend, keys: o.agent, classicalOnly: o.classicalOnly };

  // Artifacts: RPR under principal keys, the other three under agent keys, each in its own context (D8).
  const payloads = artifactPayloadsV2({
    ids,
    nonce,
    tier: o.tier,
    principal: o.principal,
    agent: o.agent,
    withPq: !o.classicalOnly,
    at,
    expiresAt: isoAt(o.now, KEY_VALIDITY_SECONDS),
    emergencyRevocationToken: o.emergencyRevocationToken,
  });
  o.hooks.payloads?.(payloads);
  const ctx = (name: Parameters<typeof contextString>[1]) => contextString(o.profile, name);
  const artifacts: ArtifactSet<JsonObject> = {
    responsible_principal_record: signedPayload(
      principalSigner,
      ctx('ResponsiblePrincipal'),
      payloads.responsible_principal_record,
      'responsible_principal_record',
    ),
    agent_passport: signedPayload(
      agentSigner,
      ctx('AgentPassport'),
      payloads.agent_passport,
      'agent_passport',
    ),
    intent: signedPayload(agentSigner, ctx('Intent'), payloads.intent, 'intent'),
    policy_decision: signedPayload(
      agentSigner,
      ctx('PolicyDecision'),
      payloads.policy_decision,
      'policy_decision',
    ),
  };
  o.hooks.artifacts?.(artifacts);

  // Audit trail: checkpoint refs are fixed before chaining so no entry is rewritten afterwards.
  const ranges = checkpointRanges(o.entries, o.checkpointInterval);
  const checkpointIds = o.shape === 'sdk' ? ranges.map(() => `ckpt-${uuidV4(o.random)}`) : [];
  const refs: (string | null)[] = new Array(o.entries).fill(null);
  ranges.forEach(({ from, to }, index) => {
    for (let i = from; i < to; i++)
      refs[i] = o.shape === 'sdk' ? (checkpointIds[index] ?? null) : specCheckpointRef(index);
  });
  const entries = auditEntriesV2({
    ids,
    nonce,
    at,
    count: o.entries,
    dualHash: o.dualHash,
    intentPayload: payloads.intent,
    actionType: String(payloads.intent['action_type']),
    checkpointRefs: refs,
    hooks: o.hooks,
  });
  const digests = auditDigests(entries);
  const checkpoints: JsonObject[] = checkpointsV2(
    { shape: o.shape, profile: o.profile, signer: agentSigner, nonce, at, ranges, ids: checkpointIds },
    entries,
    digests,
  );
  o.hooks.checkpoints?.(checkpoints);

  const manifest = manifestV2(o, {
    nonce,
    at,
    artifacts,
    entryCount: entries.length,
    primaryRoot: merkleRoot('sha256', digests.primary),
    secondaryRoot: merkleRoot('sha3-256', digests.secondary),
    checkpoints,
  });
  o.hooks.manifest?.(manifest);

  const bundle: JsonObject = {
    dcp_bundle_version: '2.0',
    manifest,
    ...artifacts,
    audit_entries: entries,
    ...(checkpoints.length > 0 ? { pq_checkpoints: checkpoints } : {}),
  };
  // The bundle signature covers jcs(manifest) only, under Bundle, with the principal's keys (D8).
  const composite_sig = compositeOver(principalSigner, ctx('Bundle'), manifest, 'manifest');
  const manifest_hash = prefixed('sha256', jcsBytes(manifest, 'manifest'));
  const signature: JsonObject =
    o.shape === 'sdk'
      ? {
          hash_alg: o.dualHash ? 'sha256+sha3-256' : 'sha256',
          created_at: at,
          signer: {
            type: 'human',
            id: ids.humanId,
            kids:
              o.classicalOnly || !o.principal.pq
                ? [o.principal.classical.kid]
                : [o.principal.classical.kid, o.principal.pq.kid],
          },
          manifest_hash,
          composite_sig,
        }
      : { composite_sig, manifest_hash };
  const signed_bundle: JsonObject = { bundle, signature };
  o.hooks.signedBundle?.(signed_bundle);
  // Both anchorable hashes of the same canonical bytes (P62), of the covered form as the verifier hashes it (P247).
  return {
    signed_bundle,
    keys: { principal: o.principal, agent: o.agent },
    ...unwrap(signedV2BundleHashes(signed_bundle), 'hashing the signed bundle'),
  };
}

interface ManifestInputs {
  readonly nonce: string;
  readonly at: string;
  readonly artifacts: ArtifactSet<JsonObject>;
  readonly entryCount: number;
  readonly primaryRoot: string;
  readonly secondaryRoot: string;
  readonly checkpoints: readonly JsonObject[];
}

/**
 * D5: SPEC.md's manifest (+ audit_count) for the spec shape, the SDK manifest (PROTOCOL §6.2) for
 * the sdk shape. Artifact hashes are the artifacts' payload_hash values.
 */
function manifestV2(o: ResolvedOptions, m: ManifestInputs): JsonObject {
  const hashes = {
    rpr_hash: m.artifacts.responsible_principal_record['payload_hash'],
    passport_hash: m.artifacts.agent_passport['payload_hash'],
    intent_hash: m.artifacts.intent['payload_hash'],
    policy_hash: m.artifacts.policy_decision['payload_hash'],
  };
  const expires = isoAt(new Date(m.at), o.sessionTtlSeconds);
  if (o.shape === 'spec') {
    return {
      dcp_bundle_version: '2.0',
      session_nonce: m.nonce,
      ...hashes,
      audit_merkle_root: m.primaryRoot,
      ...(o.dualHash ? { audit_merkle_root_secondary: m.secondaryRoot } : {}),
      audit_count: m.entryCount,
      checkpoint_count: m.checkpoints.length,
      created_at: m.at,
      session_expires_at: expires,
    };
  }
  return {
    session_nonce: m.nonce,
    ...hashes,
    audit_merkle_root: m.primaryRoot,
    audit_count: m.entryCount,
    canonicalization_profile: CANONICALIZATION_PROFILE,
    ...(o.dualHash ? { audit_merkle_root_secondary: m.secondaryRoot } : {}),
    ...(m.checkpoints.length > 0 ? { pq_checkpoints: m.checkpoints.map((c) => c['checkpoint_id']) } : {}),
    session_expires_at: expires,
  };
}
