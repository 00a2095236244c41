// The V1 verification pipeline: schema, Ed25519 over V1-canonical bytes, bundle_hash, merkle_root,
// intent_hash, prev_hash chain, RPR expiry (at finalize) and passport status. PROTOCOL §5; DECISIONS D11.
import { canonicalBytesV1 } from '../../canonical/index.ts';
import type { CryptoBackend } from '../../crypto/index.ts';
import { decodeBase64Strict } from '../../encoding/index.ts';
import { hexDigest, prefixedHash } from '../../hash/index.ts';
import { protocolMerkleRoot } from '../../merkle/index.ts';
import { formatSchemaIssues, validateSchema } from '../../schema/index.ts';
import { describe, prop, propArray, propRecord, propString } from '../json.ts';
import { Ledger, V1_CHECK_ORDER } from '../ledger.ts';
import type { VerifierRuntime } from '../settings.ts';
import type { BundleAnalysis, TimeDependentFacts } from '../types.ts';

const ED25519_PUBLIC_KEY = 32;
const ED25519_SIGNATURE = 64;

function safeVerify(backend: CryptoBackend, key: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean {
  try {
    return backend.verify('ed25519', key, msg, sig) === true;
  } catch {
    return false;
  }
}

/** Why V1 is refused by this verifier's settings (D11), or undefined when accepted. */
function refusal(runtime: VerifierRuntime): string | undefined {
  const settings = runtime.settings;
  if (settings.acceptedVersions.includes('1.0')) return undefined;
  if (!settings.allowV1Bundles)
    return 'V1 bundles are not accepted by this verifier (ALLOW_V1_BUNDLES=false)';
  return `V1 bundles are below the policy's min_accepted_version ${settings.policy.min_accepted_version}`;
}

/**
 * D11 key rule: the bundle's `signature.signer.public_key_b64`; the request's key only when the
 * bundle has none; both present and different is E303 (upstream lets the request key win).
 */
export function analyzeV1(
  runtime: VerifierRuntime,
  signed: unknown,
  requestKey: string | undefined,
): BundleAnalysis {
  const ledger = new Ledger();
  let timeDependent: TimeDependentFacts = { signingKeys: [] };
  const extra: { agentId?: string; jurisdiction?: string; rprHash?: string; bundleHash?: string } = {};
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
  const verdict = validateSchema('v1', 'signed_bundle', signed);
  if (!verdict.valid) {
    ledger.fail('schema', 'BUNDLE_SCHEMA_INVALID', `signed_bundle: ${formatSchemaIssues(verdict.issues, 8)}`);
    return finish();
  }
  const bundle = propRecord(signed, 'bundle');
  const signature = propRecord(signed, 'signature');
  const entries = propArray(bundle, 'audit_entries') ?? [];
  const canonical = canonicalBytesV1(bundle);
  if (bundle === undefined || signature === undefined || !canonical.ok) {
    ledger.fail(
      'schema',
      'BUNDLE_SCHEMA_INVALID',
      `bundle: ${canonical.ok ? 'missing' : canonical.error.message}`,
    );
    return finish();
  }
  const entryBytes: Uint8Array[] = [];
  for (const [i, entry] of entries.entries()) {
    const bytes = canonicalBytesV1(entry);
    if (!bytes.ok) {
      ledger.fail('schema', 'BUNDLE_SCHEMA_INVALID', `audit_entries[${i}]: ${bytes.error.message}`);
      return finish();
    }
    entryBytes.push(bytes.value);
  }
  const intentBytes = canonicalBytesV1(prop(bundle, 'intent'));
  const rprBytes = canonicalBytesV1(prop(bundle, 'responsible_principal_record'));
  if (entries.length === 0 || !intentBytes.ok || !rprBytes.ok) {
    ledger.fail(
      'schema',
      'BUNDLE_SCHEMA_INVALID',
      'bundle: intent, responsible_principal_record or audit_entries unusable',
    );
    return finish();
  }
  ledger.set('schema', 'pass');

  // classical_sig: Ed25519 over the raw V1-canonical bytes, no context (PROTOCOL §5.2).
  const policy = runtime.settings.policy;
  const bundleKey = propString(propRecord(signature, 'signer'), 'public_key_b64');
  const keyText = bundleKey ?? requestKey;
  const bytes = canonical.value;
  if (bundleKey !== undefined && requestKey !== undefined && bundleKey !== requestKey) {
    ledger.fail(
      'classical_sig',
      'KID_MISMATCH',
      'public_key_b64 in the request differs from signature.signer.public_key_b64',
    );
  } else if (keyText === undefined) {
    ledger.fail(
      'classical_sig',
      'SIGNATURE_MISSING',
      'Missing public key (provide public_key_b64 or signature.signer.public_key_b64)',
    );
  } else if (prop(signature, 'alg') !== 'ed25519') {
    ledger.fail(
      'classical_sig',
      'ALGORITHM_UNAVAILABLE',
      `Unsupported V1 signature algorithm ${describe(prop(signature, 'alg'))}`,
    );
  } else if (
    !policy.accepted_algorithms.signing.includes('ed25519') ||
    runtime.settings.advisoryRejectedAlgs.includes('ed25519')
  ) {
    ledger.fail(
      'classical_sig',
      'POLICY_VIOLATION',
      'Classical algorithm ed25519 not accepted by verifier policy',
    );
  } else {
    const key = decodeBase64Strict(keyText);
    const sigText = prop(signature, 'sig_b64');
    const sig = typeof sigText === 'string' ? decodeBase64Strict(sigText) : undefined;
    if (key === undefined || key.length !== ED25519_PUBLIC_KEY) {
      ledger.fail(
        'classical_sig',
        'CLASSICAL_SIG_INVALID',
        'Signer public key is not strict base64 of a 32-byte Ed25519 key',
      );
    } else if (sig === undefined || sig.length !== ED25519_SIGNATURE) {
      ledger.fail(
        'classical_sig',
        'CLASSICAL_SIG_INVALID',
        'sig_b64 is not strict base64 of a 64-byte Ed25519 signature',
      );
    } else if (!runtime.backend.algorithms.includes('ed25519')) {
      ledger.fail(
        'classical_sig',
        'ALGORITHM_UNAVAILABLE',
        `ed25519 is not available in the ${runtime.backend.name} backend`,
      );
    } else if (!safeVerify(runtime.backend, key, bytes, sig)) {
      ledger.fail(
        'classical_sig',
        'CLASSICAL_SIG_INVALID',
        'SIGNATURE INVALID: Ed25519 signature does not verify over the bundle',
      );
    }
  }
  ledger.settle('classical_sig');

  const bundleHash = prefixedHash('sha256', hexDigest('sha256', bytes));
  const statedHash = prop(signature, 'bundle_hash');
  if (typeof statedHash === 'string') extra.bundleHash = statedHash;
  if (statedHash !== bundleHash) {
    ledger.fail(
      'bundle_hash',
      'MANIFEST_HASH_MISMATCH',
      `BUNDLE HASH MISMATCH: expected ${bundleHash}, got ${describe(statedHash)}`,
    );
  }
  ledger.settle('bundle_hash');

  if (!policy.accepted_algorithms.hash.includes('sha256')) {
    ledger.fail(
      'hash_chain',
      'POLICY_VIOLATION',
      'Hash algorithm sha256 (every V1 hash) not accepted by verifier policy',
    );
  }
  const leaves = entryBytes.map((b) => hexDigest('sha256', b));
  const statedRoot = prop(signature, 'merkle_root');
  if (statedRoot === undefined || statedRoot === null) {
    ledger.set('merkle_root', 'absent');
  } else {
    const root = protocolMerkleRoot('sha256', leaves);
    const expected = root === undefined ? undefined : prefixedHash('sha256', root);
    if (statedRoot !== expected) {
      ledger.fail(
        'merkle_root',
        'MERKLE_ROOT_MISMATCH',
        `MERKLE ROOT MISMATCH: expected ${String(expected)}, got ${describe(statedRoot)}`,
      );
    }
    ledger.settle('merkle_root');
  }

  // Bare hex in V1 chains (PROTOCOL §2.1, D3).
  const intentHash = hexDigest('sha256', intentBytes.value);
  let intentBreaks = 0;
  let chainBreaks = 0;
  entries.forEach((entry, i) => {
    const got = prop(entry, 'intent_hash');
    if (got !== intentHash && intentBreaks++ === 0) {
      ledger.fail(
        'intent_hash',
        'INTENT_HASH_MISMATCH',
        `intent_hash (entry ${i}): expected ${intentHash}, got ${describe(got)}`,
      );
    }
    const prev = prop(entry, 'prev_hash');
    const expected = i === 0 ? 'GENESIS' : leaves[i - 1]!;
    if (prev !== expected && chainBreaks++ === 0) {
      ledger.fail(
        'hash_chain',
        'HASH_CHAIN_BROKEN',
        `prev_hash chain (entry ${i}): expected ${expected}, got ${describe(prev)}`,
      );
    }
  });
  if (intentBreaks > 1)
    ledger.fail(
      'intent_hash',
      'INTENT_HASH_MISMATCH',
      `${intentBreaks - 1} more entries have a wrong intent_hash`,
    );
  if (chainBreaks > 1)
    ledger.fail('hash_chain', 'HASH_CHAIN_BROKEN', `${chainBreaks - 1} more prev_hash chain breaks`);
  ledger.settle('intent_hash');
  ledger.settle('hash_chain');

  const passport = propRecord(bundle, 'agent_passport');
  const rpr = propRecord(bundle, 'responsible_principal_record');
  const status = prop(passport, 'status');
  if (status !== 'active') {
    ledger.fail(
      'key_validity',
      'AGENT_REVOKED',
      `Agent passport status is '${describe(status)}' (must be 'active')`,
    );
  }
  ledger.settle('key_validity');
  const expires = prop(rpr, 'expires_at');
  timeDependent = { signingKeys: [], rprExpiresAt: typeof expires === 'string' ? expires : null };

  const agentId = propString(passport, 'agent_id');
  const jurisdiction = propString(rpr, 'jurisdiction');
  if (agentId !== undefined) extra.agentId = agentId;
  if (jurisdiction !== undefined) extra.jurisdiction = jurisdiction;
  extra.rprHash = prefixedHash('sha256', hexDigest('sha256', rprBytes.value));
  return finish();
}
