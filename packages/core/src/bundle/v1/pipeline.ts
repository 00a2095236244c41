// The V1 verification pipeline: a list of named checks, each in v1/checks/<check>.ts (README table).
// PROTOCOL §5; DECISIONS D3, D8, D11; issue 13 item 3.
import { hexDigest, prefixedHash } from '../../hash/index.ts';
import { secondaryBundleHash } from '../bundle-hashes.ts';
import { propRecord, propString } from '../json.ts';
import { Ledger, V1_CHECK_ORDER } from '../ledger.ts';
import { findPartyMismatches } from '../parties.ts';
import type { VerifierRuntime } from '../settings.ts';
import type { BundleAnalysis, TimeDependentFacts } from '../types.ts';
import { checkBundleHash } from './checks/bundle-hash.ts';
import { checkClassicalSig } from './checks/classical-sig.ts';
import { checkHashAlgorithmPolicy, findHashChainBreaks, hashChainMoreMessage } from './checks/hash-chain.ts';
import { findIntentHashBreaks, intentHashMoreMessage } from './checks/intent-hash.ts';
import { checkKeyValidity } from './checks/key-validity.ts';
import { checkMerkleRoot } from './checks/merkle-root.ts';
import type { EntryBreaks } from './checks/parsed.ts';
import { checkSchema } from './checks/schema.ts';

/** Why V1 is refused by this verifier's settings (D11), or undefined when accepted. */
function refusal(runtime: VerifierRuntime): string | undefined {
  const settings = runtime.settings;
  if (settings.acceptedVersions.includes('1.0')) return undefined;
  if (!settings.allowV1Bundles)
    return 'V1 bundles are not accepted by this verifier (ALLOW_V1_BUNDLES=false)';
  return `V1 bundles are below the policy's min_accepted_version ${settings.policy.min_accepted_version}`;
}

/**
 * intent_hash and hash_chain are checked apart but reported as one walk over the entries always was:
 * the first break of each in entry order (intent_hash first on the same entry), then the counts.
 */
function recordEntryBreaks(ledger: Ledger, intent: EntryBreaks, chain: EntryBreaks): void {
  const firsts = [
    ...(intent.first === undefined ? [] : [{ check: 'intent_hash' as const, ...intent.first }]),
    ...(chain.first === undefined ? [] : [{ check: 'hash_chain' as const, ...chain.first }]),
  ].sort((x, y) => x.entry - y.entry);
  for (const f of firsts) {
    ledger.fail(f.check, f.check === 'intent_hash' ? 'INTENT_HASH_MISMATCH' : 'HASH_CHAIN_BROKEN', f.message);
  }
  if (intent.count > 1)
    ledger.fail('intent_hash', 'INTENT_HASH_MISMATCH', intentHashMoreMessage(intent.count));
  if (chain.count > 1) ledger.fail('hash_chain', 'HASH_CHAIN_BROKEN', hashChainMoreMessage(chain.count));
  ledger.settle('intent_hash');
  ledger.settle('hash_chain');
}

/** D11: V1 is refused, or checked in this order; `signed` is the request's signed_bundle. */
export function analyzeV1(
  runtime: VerifierRuntime,
  signed: unknown,
  requestKey: string | undefined,
  /** P74: compute `bundleHashSecondary` (only an anchor receipt naming one needs it). */
  withSecondary = false,
): BundleAnalysis {
  const ledger = new Ledger();
  let timeDependent: TimeDependentFacts = { signingKeys: [] };
  const extra: {
    signerKids?: readonly string[];
    agentId?: string;
    jurisdiction?: string;
    rprHash?: string;
    bundleHash?: string;
    bundleHashSecondary?: string;
  } = {};
  const finish = (): BundleAnalysis =>
    Object.freeze({
      version: '1.0',
      signerKids: Object.freeze([]),
      checkpointsVerified: 0,
      ...extra,
      checks: Object.freeze(ledger.checks(V1_CHECK_ORDER)),
      findings: Object.freeze([...ledger.findings]),
      warnings: Object.freeze([...ledger.warnings]),
      timeDependent,
    });

  const refused = refusal(runtime);
  if (refused !== undefined) {
    ledger.fail('version', 'VERSION_UNSUPPORTED', refused);
    return finish();
  }
  const parsed = checkSchema(ledger, signed);
  if (parsed === undefined) return finish();
  // P225: the signer's kid, so that a revocation list naming the key fails the bundle (and a cached analysis
  // is evicted with the kid), as for V2's signers.
  const signerKid = checkClassicalSig(ledger, runtime, parsed, requestKey);
  if (signerKid !== undefined) extra.signerKids = Object.freeze([signerKid]);
  const statedHash = checkBundleHash(ledger, parsed);
  if (statedHash !== undefined) extra.bundleHash = statedHash;
  // P62: over the bytes bundle_hash covers (a bundle whose stated hash differs fails bundle_hash anyway).
  if (withSecondary) extra.bundleHashSecondary = secondaryBundleHash(parsed.bundleBytes);
  checkHashAlgorithmPolicy(ledger, runtime);
  // Bare hex leaves (PROTOCOL §2.1, D3): merkle_root's leaves and hash_chain's links.
  const leaves = parsed.entryBytes.map((b) => hexDigest('sha256', b));
  checkMerkleRoot(ledger, parsed, leaves);
  recordEntryBreaks(ledger, findIntentHashBreaks(parsed), findHashChainBreaks(parsed, leaves));
  // P246: one agent, one principal, one intent across the artifacts and the trail.
  const artifact = (name: string) => propRecord(parsed.bundle, name);
  for (const f of findPartyMismatches({
    rpr: artifact('responsible_principal_record'),
    passport: artifact('agent_passport'),
    intent: artifact('intent'),
    policyDecision: artifact('policy_decision'),
    entries: parsed.entries,
  }))
    ledger.fail(f.check, f.code, f.message);
  timeDependent = checkKeyValidity(ledger, parsed);

  const agentId = propString(propRecord(parsed.bundle, 'agent_passport'), 'agent_id');
  const jurisdiction = propString(propRecord(parsed.bundle, 'responsible_principal_record'), 'jurisdiction');
  if (agentId !== undefined) extra.agentId = agentId;
  if (jurisdiction !== undefined) extra.jurisdiction = jurisdiction;
  extra.rprHash = prefixedHash('sha256', hexDigest('sha256', parsed.rprBytes));
  return finish();
}
