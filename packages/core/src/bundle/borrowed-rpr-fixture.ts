// Test fixture (`@proto/core/testing`): a stranger's V2 bundle that carries another agent's public, principal-signed
// RPR, copied whole, beside the stranger's own passport, and is signed by the stranger's passport keys. D8 looks the
// bundle signature's kid up in the passport first, so every signature in it holds; nothing the principal signed names
// this passport. P490: such a bundle verifies, with a warning.
import { Buffer } from 'node:buffer';
import { selectCryptoBackend } from '../crypto/index.ts';
import { contextString, PROFILES, type ProfileName } from '../profile.ts';
import { buildSignedBundle } from './build/index.ts';
import { compositeOver } from './build/sign.ts';
import type { BuiltBundle, BundleKeySet, JsonObject } from './build/types.ts';

export interface BorrowedRprBundle {
  /** The victim's own bundle (principal-signed, as the builder signs): where the RPR is copied from. */
  readonly victim: BuiltBundle;
  /** The stranger's bundle: the victim's RPR, the stranger's passport, signed by the stranger's passport keys. */
  readonly stranger: JsonObject;
  /** The ids the stranger's bundle names: the victim's principal and the agent id the stranger chose. */
  readonly humanId: string;
  readonly agentId: string;
  /** The kids of the stranger's passport keys that signed the bundle. */
  readonly strangerKids: readonly string[];
  /** The stranger's passport keys (its agent's: they sign its /v2 records). */
  readonly strangerKeys: BundleKeySet;
}

export interface BorrowedRprOptions {
  readonly profile?: ProfileName;
  /** The agent id the stranger's passport claims; default the victim's own agent id. */
  readonly agentId?: string;
  /** The victim's bundle to copy the RPR from (several strangers copying one RPR); default a fresh one. */
  readonly victim?: BuiltBundle;
}

const payloadOf = (signedArtifact: unknown): JsonObject =>
  (signedArtifact as JsonObject)['payload'] as JsonObject;

export function borrowedRprBundle(options: BorrowedRprOptions = {}): BorrowedRprBundle {
  const profile = options.profile ?? 'proto';
  const shape = profile === 'proto' ? 'spec' : 'sdk';
  const victim = options.victim ?? buildSignedBundle({ profile, shape, entries: 2 });
  const victimBundle = victim.signed_bundle['bundle'] as JsonObject;
  const rpr = structuredClone(victimBundle['responsible_principal_record']) as JsonObject;
  const humanId = payloadOf(rpr)['human_id'] as string;
  const agentId = options.agentId ?? (payloadOf(victimBundle['agent_passport'])['agent_id'] as string);
  // The RPR repeats its session's nonce (PROTOCOL §6.4), which is public: the stranger's session reuses it.
  const nonce = Buffer.from(payloadOf(rpr)['session_nonce'] as string, 'hex');
  let nonceGiven = false;
  const random = (length: number): Uint8Array => {
    if (!nonceGiven && length === nonce.length) {
      nonceGiven = true;
      return new Uint8Array(nonce);
    }
    return crypto.getRandomValues(new Uint8Array(length));
  };

  // The builder wants a principal key set to sign an RPR and the bundle; the stranger's throwaway one signs only
  // what is replaced below (the RPR by the copy, the bundle signature by the passport keys).
  const built = buildSignedBundle({
    profile,
    shape,
    entries: 2,
    random,
    hooks: {
      payloads: (p) => {
        p.agent_passport['agent_id'] = agentId;
        p.agent_passport['principal_binding_reference'] = humanId;
        p.intent['agent_id'] = agentId;
        p.intent['human_id'] = humanId;
      },
      artifacts: (a) => {
        a.responsible_principal_record = rpr;
      },
    },
  });
  const stranger = built.signed_bundle;
  const manifest = (stranger['bundle'] as JsonObject)['manifest'];
  const agentSigner = { backend: selectCryptoBackend(), keys: built.keys.agent, classicalOnly: false };
  const signature = stranger['signature'] as JsonObject;
  signature['composite_sig'] = compositeOver(
    agentSigner,
    contextString(PROFILES[profile], 'Bundle'),
    manifest,
    'manifest',
  );
  const strangerKids = [
    built.keys.agent.classical.kid,
    ...(built.keys.agent.pq ? [built.keys.agent.pq.kid] : []),
  ];
  // The SDK shape's signer label is unsigned (P280): the stranger names the victim's principal and its keys.
  const signer = signature['signer'] as JsonObject | undefined;
  if (signer !== undefined) {
    signer['id'] = humanId;
    signer['kids'] = strangerKids;
  }
  return { victim, stranger, humanId, agentId, strangerKids, strangerKeys: built.keys.agent };
}
