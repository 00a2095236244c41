// Jurisdiction attestation issuance: POST /attest signs {issuer, jurisdiction, rpr_hash, agent_id,
// attested_at, expires_at} under JurisdictionAttestation. DECISIONS D21, D22 (bearer token); SPEC.md.
import { errorResponses, httpError, protocolError } from '@proto/service-kit';
import type { RevocationRepository } from '@proto/store';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { signAttestation } from '../core.ts';
import { assertAgentId, assertNotKeyIdForm } from '../ids.ts';
import type { SigningKey } from '../keys.ts';

export interface AttestRoutesOptions {
  readonly repository: RevocationRepository;
  readonly issuer: string;
  readonly jurisdiction: string;
  readonly key: SigningKey;
  readonly validitySeconds: number;
  readonly guard: onRequestHookHandler;
  readonly clock: () => Date;
  readonly onIssued?: () => void;
}

const signatureSchema = {
  type: 'object',
  required: ['alg', 'public_key_b64', 'sig_b64'],
  properties: { alg: { type: 'string' }, public_key_b64: { type: 'string' }, sig_b64: { type: 'string' } },
} as const;

export async function attestRoutes(app: FastifyInstance, options: AttestRoutesOptions): Promise<void> {
  app.post<{ Body: { rpr_hash: string; agent_id: string } }>(
    '/attest',
    {
      onRequest: options.guard,
      schema: {
        summary: 'Issue a signed jurisdiction attestation for an RPR hash and agent (D21)',
        tags: ['attestation'],
        body: {
          type: 'object',
          required: ['rpr_hash', 'agent_id'],
          additionalProperties: false,
          properties: {
            rpr_hash: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
            agent_id: { type: 'string' },
          },
        },
        response: {
          200: {
            type: 'object',
            required: ['attestation'],
            properties: {
              attestation: {
                type: 'object',
                required: [
                  'issuer',
                  'jurisdiction',
                  'rpr_hash',
                  'agent_id',
                  'attested_at',
                  'expires_at',
                  'signature',
                ],
                properties: {
                  issuer: { type: 'string' },
                  jurisdiction: { type: 'string' },
                  rpr_hash: { type: 'string' },
                  agent_id: { type: 'string' },
                  attested_at: { type: 'string' },
                  expires_at: { type: 'string' },
                  signature: signatureSchema,
                },
              },
            },
          },
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { rpr_hash: rprHash, agent_id: agentId } = request.body;
      assertAgentId(agentId);
      assertNotKeyIdForm(agentId);
      // The authority does not vouch for an agent it has revoked. The check, the clock, the signature and the
      // record happen under the list lock (P400): a revocation landing meanwhile waits, so no attestation is
      // dated after the list that revokes its agent.
      let attestation: unknown;
      const result = await options.repository.issueAttestation(options.jurisdiction, agentId, () => {
        const now = options.clock();
        const signed = signAttestation(
          {
            issuer: options.issuer,
            jurisdiction: options.jurisdiction,
            rpr_hash: rprHash,
            agent_id: agentId,
            attested_at: now.toISOString(),
            expires_at: new Date(now.getTime() + options.validitySeconds * 1000).toISOString(),
          },
          options.key.secretKey,
          { profile: app.protocolProfile },
        );
        if (!signed.ok) throw httpError('BAD_REQUEST', signed.error.message);
        attestation = signed.value;
        return {
          jurisdiction: options.jurisdiction,
          agent_id: agentId,
          rpr_hash: rprHash,
          key_id: options.key.keyId,
          attested_at: signed.value.attested_at,
          expires_at: signed.value.expires_at,
          attestation_json: JSON.stringify(signed.value),
        };
      });
      if (result.status === 'revoked') {
        throw protocolError(
          'AGENT_REVOKED',
          app.protocolProfile,
          `${agentId} is revoked in ${options.jurisdiction}`,
        );
      }
      options.onIssued?.();
      return { attestation };
    },
  );
}
