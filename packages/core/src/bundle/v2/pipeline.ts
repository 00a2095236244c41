// The V2 pipeline: named checks (v2/checks/<check>.ts, see bundle/README.md) giving the clock-free analysis.
// PROTOCOL §6.10 (upstream order, recommended superset); DECISIONS D5–D10, D12.

import { Buffer } from 'node:buffer';
import type { CanonicalMemo } from '../../canonical/index.ts';
import { plainBytesOf } from '../../encoding/bytes.ts';
import { toHex } from '../../encoding/index.ts';
import { type HashAlg, hexDigest, prefixedHash } from '../../hash/index.ts';
import { protocolMerkleLevels, rootOfLevels } from '../../merkle/protocol-tree.ts';
import { resolveSecurityTier, type TierResolution } from '../../policy/resolve-tier.ts';
import { tierRank } from '../../policy/tiers.ts';
import { ok, type Result } from '../../result.ts';
import { signedV2BundleHashes, signedV2Digests } from '../bundle-hashes.ts';
import { prop, propArray, propRecord, propString } from '../json.ts';
import { Ledger, V2_CHECK_ORDER } from '../ledger.ts';
import { lookAlikeIdWarnings } from '../look-alike-ids.ts';
import { findPartyMismatches } from '../parties.ts';
import type { VerifierRuntime } from '../settings.ts';
import { signerLabelWarning } from '../signer-label.ts';
import type { BundleAnalysis, TimeDependentFacts } from '../types.ts';
import { checkArtifactSignatures } from './checks/artifact-sigs.ts';
import { checkBundleSignature } from './checks/bundle-signature.ts';
import { checkCheckpoints } from './checks/checkpoints.ts';
import { checkHashChain } from './checks/hash-chain.ts';
import { checkIntentHash } from './checks/intent-hash.ts';
import { checkKeyValidity } from './checks/key-validity.ts';
import { checkManifestIntegrity } from './checks/manifest-integrity.ts';
import { checkSchema } from './checks/schema.ts';
import { checkSessionNonce } from './checks/session-nonce.ts';
import type { AuditLeaves, V2Context } from './context.ts';
import { KeyDirectory } from './keys.ts';
import { prefixRootOfLevels } from './merkle-prefix.ts';
import { agentKeysOnly } from './principal-signed.ts';

/** D10: the tier from whatever the bundle offers (also for bundles that fail early). */
function resolveTier(runtime: VerifierRuntime, bundle: unknown): TierResolution {
  const payload = (field: string) => propRecord(propRecord(bundle, field), 'payload');
  const intent = payload('intent');
  const policyDecision = payload('policy_decision');
  const passport = payload('agent_passport');
  return resolveSecurityTier({
    ...(intent === undefined ? {} : { intent }),
    ...(policyDecision === undefined ? {} : { policyDecision }),
    ...(passport === undefined ? {} : { passport }),
    operatorMode: runtime.settings.mode,
    policy: runtime.settings.policy,
  });
}

/**
 * `sha256:` + SHA-256(jcs({bundle, signature})) of a V2 signed bundle, its uncovered members set aside (P247): the
 * SDK's computeBundleHash (PROTOCOL §8.3) for every SDK bundle, the V2 `bundle_hash` for caches, anchors and logs.
 * Error when it has no canonical form.
 * `memo` (internal): the parts' texts from this verification's `canonicalFormsV2`, reused as they are.
 */
export function computeBundleHash(signed: unknown, memo?: CanonicalMemo): Result<string> {
  // Hashed as it is written, the memoised parts as the bytes already encoded for their own hashes:
  // no text of the whole bundle (hundreds of KB with ML-DSA checkpoints) is built, flattened or encoded.
  const digests = signedV2Digests(signed, ['sha256'], memo);
  return digests.ok ? ok(prefixedHash('sha256', digests.value[0] as string)) : digests;
}

/**
 * Leaves decoded from hex once per family and the full roots computed once: the manifest's roots and a
 * checkpoint over every entry are the same roots (PROTOCOL §2.2, D6).
 */
function auditLeaves(sha256: () => readonly string[], sha3: () => readonly string[]): AuditLeaves {
  const digests = new Map<HashAlg, readonly Uint8Array[]>();
  const trees = new Map<HashAlg, Uint8Array[][] | undefined>();
  const fullRoots = new Map<HashAlg, string | undefined>();
  const leavesOf = (alg: HashAlg): readonly Uint8Array[] => {
    let leaves = digests.get(alg);
    if (leaves === undefined) {
      // Our own hex digests (always 64 lowercase hex characters), so not checked again, and only read
      // as Merkle input: views that may share Node's pool, no copy of their own (P133).
      leaves = (alg === 'sha256' ? sha256() : sha3()).map((hex) => plainBytesOf(Buffer.from(hex, 'hex')));
      digests.set(alg, leaves);
    }
    return leaves;
  };
  // Every level kept: a checkpoint's prefix root folds nodes of this tree instead of hashing them again.
  const treeOf = (alg: HashAlg): Uint8Array[][] | undefined => {
    if (!trees.has(alg)) {
      const leaves = leavesOf(alg);
      trees.set(alg, leaves.length === 0 ? undefined : protocolMerkleLevels(alg, leaves));
    }
    return trees.get(alg);
  };
  return {
    digests: leavesOf,
    fullRoot: (alg) => {
      // Asked by the manifest's check and by a checkpoint over every entry: its hex written once.
      if (!fullRoots.has(alg)) {
        const levels = treeOf(alg);
        fullRoots.set(alg, levels === undefined ? undefined : toHex(rootOfLevels(levels)));
      }
      return fullRoots.get(alg);
    },
    prefixRoot: (alg, count) => {
      const levels = treeOf(alg) ?? [];
      return count === levels[0]?.length ? rootOfLevels(levels) : prefixRootOfLevels(alg, levels, count);
    },
  };
}

/** The bundle's ids a person reads (P383): the parties', the intent's and each audit entry's own. */
function* partyIds(
  rpr: unknown,
  passport: unknown,
  rest: { readonly intent: unknown; readonly entries: readonly unknown[] },
): Generator<readonly [string, unknown]> {
  yield ['responsible_principal_record.payload.human_id', prop(rpr, 'human_id')];
  yield ['agent_passport.payload.agent_id', prop(passport, 'agent_id')];
  yield ['agent_passport.payload.principal_binding_reference', prop(passport, 'principal_binding_reference')];
  yield ['intent.payload.intent_id', prop(rest.intent, 'intent_id')];
  for (let i = 0; i < rest.entries.length; i++)
    yield [`audit_entries[${i}].audit_id`, prop(rest.entries[i], 'audit_id')];
}

type AnalysisHashes = Pick<BundleAnalysis, 'bundleHash' | 'bundleHashSecondary'>;

/** Which whole-bundle hashes an analysis computes (P74, P123); the secondary comes with the primary. */
export type WantedBundleHashes = 'none' | 'primary' | 'both';

function primaryBundleHash(signed: unknown, memo: CanonicalMemo): AnalysisHashes | undefined {
  const hash = computeBundleHash(signed, memo);
  return hash.ok ? { bundleHash: hash.value } : undefined;
}

function bothBundleHashes(signed: unknown, memo: CanonicalMemo): AnalysisHashes | undefined {
  const hashes = signedV2BundleHashes(signed, memo);
  return hashes.ok ? hashes.value : undefined;
}

export function analyzeV2(
  runtime: VerifierRuntime,
  signed: unknown,
  requestKey: boolean,
  /** P74, P123: the verdict needs neither whole-bundle hash; only an anchor receipt, the CLI or the builder do. */
  wanted: WantedBundleHashes = 'none',
): BundleAnalysis {
  const ledger = new Ledger();
  const bundle = propRecord(signed, 'bundle');
  const tier = resolveTier(runtime, bundle);
  const finish = (
    extra: Partial<BundleAnalysis> & { timeDependent?: TimeDependentFacts } = {},
  ): BundleAnalysis =>
    Object.freeze({
      version: '2.0',
      resolvedTier: tier.tier,
      mode: tier.mode,
      signerKids: [],
      checkpointsVerified: 0,
      timeDependent: { signingKeys: [] },
      ...extra,
      checks: Object.freeze(ledger.checks(V2_CHECK_ORDER)),
      findings: Object.freeze([...ledger.findings]),
      warnings: Object.freeze([...ledger.warnings]),
    });

  if (requestKey)
    ledger.warn('public_key_b64 in the request is ignored for V2 bundles (keys come from passport and RPR)');
  const read = checkSchema(ledger, runtime, signed, bundle);
  if (read === undefined) return finish();
  const { parts, forms } = read;

  let sha3: readonly string[] | undefined;
  const sha3Leaves = (): readonly string[] => {
    sha3 ??= forms.entries.map((e) => hexDigest('sha3-256', e.bytes));
    return sha3;
  };
  const ctx: V2Context = {
    runtime,
    ledger,
    parts,
    ...forms,
    keys: new KeyDirectory(
      propArray(forms.artifacts.agent_passport.payload, 'keys'),
      propArray(forms.artifacts.responsible_principal_record.payload, 'binding_keys'),
    ),
    tier,
    sha3Leaves,
    audit: auditLeaves(() => forms.entries.map((e) => e.sha256), sha3Leaves),
    usedKeys: new Set(),
    reportedKids: new Set(),
  };

  for (const c of tier.candidates) {
    if (c.source === 'intent_declared' && tierRank(c.tier) < tierRank(tier.tier)) {
      ledger.warn(
        `Intent declares security_tier ${c.tier}; verified at ${tier.tier} (D10: a tier is never lowered)`,
      );
    }
  }

  checkManifestIntegrity(ctx);
  checkSessionNonce(ctx);
  const bundleSigning = checkBundleSignature(ctx);
  checkArtifactSignatures(ctx);
  checkHashChain(ctx);
  checkIntentHash(ctx);
  // P246: one agent, one principal, one intent across the artifacts and the trail.
  for (const f of findPartyMismatches({
    rpr: forms.artifacts.responsible_principal_record.payload,
    passport: forms.artifacts.agent_passport.payload,
    intent: forms.artifacts.intent.payload,
    policyDecision: forms.artifacts.policy_decision.payload,
    entries: parts.entries,
  }))
    ledger.fail(f.check, f.code, f.message);
  // P280: the signature's signer label is unsigned; one naming someone else than the parties is a warning.
  const label = signerLabelWarning(parts.signature, {
    humanId: prop(forms.artifacts.responsible_principal_record.payload, 'human_id'),
    agentId: prop(forms.artifacts.agent_passport.payload, 'agent_id'),
  });
  if (label !== undefined) ledger.warn(label);
  // P490: a bundle no key of the RPR's binding_keys signed binds nothing of the principal's to this passport; a
  // warning, or a failure of the operator's policy when it requires the principal's signature (P502).
  const agentOnly = agentKeysOnly(bundleSigning, ctx.keys.records, {
    humanId: prop(forms.artifacts.responsible_principal_record.payload, 'human_id'),
    agentId: prop(forms.artifacts.agent_passport.payload, 'agent_id'),
  });
  if (agentOnly !== undefined && runtime.settings.requirePrincipalSignature)
    ledger.fail('policy', 'POLICY_VIOLATION', agentOnly.failure);
  else if (agentOnly !== undefined) ledger.warn(agentOnly.warning);
  // P383: ids a person cannot tell apart from others (not NFC, invisible characters, mixed scripts) are named.
  for (const w of lookAlikeIdWarnings(
    partyIds(forms.artifacts.responsible_principal_record.payload, forms.artifacts.agent_passport.payload, {
      intent: forms.artifacts.intent.payload,
      entries: parts.entries,
    }),
  ))
    ledger.warn(w);
  const checkpoints = checkCheckpoints(ctx);
  const timeDependent = checkKeyValidity(ctx);

  // Streamed as the canonical form is written (P65). No check reads either hash of the whole bundle
  // (100–400 KB): an anchor receipt is compared with them, so they cost a walk only when asked for (P74 for
  // the SHA3-256 one, P123 for the SHA-256 one); both then come from the same walk.
  const hashes =
    wanted === 'both'
      ? bothBundleHashes(signed, forms.memo)
      : wanted === 'primary'
        ? primaryBundleHash(signed, forms.memo)
        : undefined;
  const passport = forms.artifacts.agent_passport.payload;
  const rpr = forms.artifacts.responsible_principal_record.payload;
  const agentId = propString(passport, 'agent_id');
  const humanId = propString(rpr, 'human_id');
  const jurisdiction = propString(rpr, 'jurisdiction');
  const sessionNonce = propString(parts.manifest, 'session_nonce');
  return finish({
    ...(agentId === undefined ? {} : { agentId }),
    ...(humanId === undefined ? {} : { humanId }),
    ...(jurisdiction === undefined ? {} : { jurisdiction }),
    ...(sessionNonce === undefined ? {} : { sessionNonce }),
    ...(hashes === undefined ? {} : hashes),
    rprHash: forms.artifacts.responsible_principal_record.hash,
    signerKids: Object.freeze([...new Set([...ctx.usedKeys].map((k) => k.kid))].sort()),
    checkpointsVerified: checkpoints.verified,
    timeDependent,
  });
}
