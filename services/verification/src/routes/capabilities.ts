// GET /.well-known/<profile>-capabilities.json: what this running verifier really supports.
// SPEC.md "Capabilities document", PROTOCOL §8.1; features not implemented here are reported false.
import type { CryptoBackend, Verifier } from '@proto/core';
import { answerNotModified, CACHE_REVALIDATE } from '@proto/service-kit';
import type { FastifyInstance } from 'fastify';

/** /v2 record areas and the route whose presence means the area is served by this instance. */
const RECORD_FEATURES: Readonly<Record<string, string>> = {
  lifecycle_management: '/v2/lifecycle/commission',
  digital_succession: '/v2/succession/testament',
  dispute_resolution: '/v2/dispute/record',
  rights_framework: '/v2/rights/declaration',
  personal_representation: '/v2/delegation/mandate',
};

export interface CapabilitiesDocument {
  readonly supported_versions: readonly string[];
  readonly supported_algs: {
    readonly signing: readonly string[];
    readonly kem: readonly string[];
    readonly hash: readonly string[];
  };
  readonly supported_wire_formats: readonly string[];
  readonly features: Readonly<Record<string, boolean>>;
  readonly profile: string;
  readonly protocol_version: string;
  readonly verifier_mode: string;
  /**
   * P557: whether a V2 bundle no key of the RPR's binding_keys signed fails with E401 here (VerifierPolicy
   * `require_principal_signature`, P502) or verifies with P490's warning: a caller reads which answer it gets.
   */
  readonly require_principal_signature: boolean;
  readonly min_accepted_version: string;
  readonly crypto_backend: string;
  /**
   * P60: per log, the witness quorum its checkpoints must carry (k of the listed witness vkeys) before a
   * log receipt passes. Absent when no witnesses are configured.
   */
  readonly log_witness_quorum?: readonly LogWitnessQuorum[];
}

export interface LogWitnessQuorum {
  readonly log_url: string;
  readonly quorum: number;
  readonly witnesses: readonly string[];
}

export function capabilitiesDocument(
  verifier: Verifier,
  backend: CryptoBackend,
  protocolVersion: string,
  hasRoute: (url: string) => boolean,
  revocationListsChecked = false,
  logWitnesses: readonly LogWitnessQuorum[] = [],
): CapabilitiesDocument {
  const { settings } = verifier;
  const accepted = new Set(settings.policy.accepted_algorithms.signing);
  const pq = backend.algorithms.includes('ml-dsa-65') && accepted.has('ml-dsa-65');
  const recordFeatures = Object.fromEntries(
    Object.entries(RECORD_FEATURES).map(([name, url]) => [name, hasRoute(url)]),
  );
  return {
    supported_versions: [...settings.acceptedVersions],
    supported_algs: {
      // What the active backend can verify and the policy accepts.
      signing: backend.algorithms.filter((alg) => accepted.has(alg)),
      // No key encapsulation is performed by this service.
      kem: [],
      hash: settings.policy.accepted_algorithms.hash.filter((h) => h === 'sha256' || h === 'sha3-256'),
    },
    supported_wire_formats: ['json', 'cbor'],
    features: {
      composite_signatures: pq,
      pq_checkpoints: pq,
      dual_hash_chains: true,
      a2a_protocol: false,
      // Emergency revocations reach a verifier through the revocation lists it checks (PROTOCOL §9.5).
      emergency_revocation: revocationListsChecked,
      ...recordFeatures,
    },
    profile: verifier.profile.name,
    protocol_version: protocolVersion,
    verifier_mode: settings.mode,
    require_principal_signature: settings.requirePrincipalSignature,
    // What the running floor accepts (issue 12 item 3): without V1 the lowest accepted version is 2.0,
    // whatever the policy's own minimum says.
    min_accepted_version: settings.acceptedVersions[0] ?? settings.policy.min_accepted_version,
    crypto_backend: backend.name,
    ...(logWitnesses.length === 0 ? {} : { log_witness_quorum: logWitnesses }),
  };
}

export async function capabilitiesRoute(
  app: FastifyInstance,
  options: {
    readonly verifier: Verifier;
    readonly backend: CryptoBackend;
    readonly protocolVersion: string;
    /** REVOCATION_SOURCES is configured: agents revoked (emergency or not) are refused. */
    readonly revocationListsChecked?: boolean;
    /** The logs whose checkpoints need a witness quorum (ANCHOR_VERIFY_WITNESS_*). */
    readonly logWitnesses?: readonly LogWitnessQuorum[];
  },
): Promise<void> {
  let document: CapabilitiesDocument | undefined;
  app.get(
    options.verifier.profile.wellKnown.capabilities,
    {
      // A strong ETag and 304: revalidating the unchanged document (it changes only with a restart) costs headers.
      onSend: answerNotModified,
      schema: {
        summary: 'Capabilities of this verifier (versions, algorithms, wire formats, features)',
        tags: ['verification'],
        response: {
          200: {
            type: 'object',
            additionalProperties: true,
            properties: {
              supported_versions: { type: 'array', items: { type: 'string' } },
              supported_algs: {
                type: 'object',
                additionalProperties: { type: 'array', items: { type: 'string' } },
              },
              supported_wire_formats: { type: 'array', items: { type: 'string' } },
              features: { type: 'object', additionalProperties: { type: 'boolean' } },
              require_principal_signature: { type: 'boolean' },
            },
          },
        },
      },
    },
    async (_request, reply) => {
      // Computed once, after every route (records included) is registered.
      document ??= capabilitiesDocument(
        options.verifier,
        options.backend,
        options.protocolVersion,
        (url) => app.hasRoute({ method: 'POST', url }),
        options.revocationListsChecked === true,
        options.logWitnesses,
      );
      // P195: asked again before each use, not believed for minutes: after a restart that drops an algorithm, a
      // witness key or the V1 floor, a cached document would promise what this verifier no longer accepts.
      return reply
        .header('cache-control', CACHE_REVALIDATE)
        .header('dcp-version', options.protocolVersion)
        .send(document);
    },
  );
}
