// GET /v2/keys/:kid: the key directory's bindings of one kid and their evidence (the verified bundle's hash).
// Issue 15 item 1 (a binding and its evidence are visible to anyone who must trust a record's signature).
import type { Store } from '@proto/store';
import type { FastifyInstance } from 'fastify';
import { invalidId, notFound } from './errors.ts';
import { isValidId } from './ids.ts';

/** A kid as the verifier derives it: 32 lower-case hex digits. */
const KID_PATTERN = /^[0-9a-f]{32}$/;

export async function keyDirectoryRoutes(
  app: FastifyInstance,
  options: { readonly store: Store; readonly maxKeyAgeDays?: number | undefined },
): Promise<void> {
  app.get(
    '/v2/keys/:kid',
    {
      schema: {
        tags: ['records: keys'],
        summary: 'Which agent and human a key is bound to, and the verified bundle that bound it',
        params: { type: 'object', required: ['kid'], properties: { kid: { type: 'string' } } },
      },
    },
    async (request) => {
      const kid = (request.params as { kid?: unknown }).kid;
      if (!isValidId(kid) || !KID_PATTERN.test(kid)) throw invalidId('kid in path', kid, KID_PATTERN.source);
      const rows = await options.store.keys.lookup(
        kid,
        options.maxKeyAgeDays === undefined ? {} : { maxKeyAgeDays: options.maxKeyAgeDays },
      );
      if (rows.length === 0) {
        throw notFound(
          `Key ${kid} is not bound: a key becomes bound when a V2 bundle carrying it verifies at POST /verify`,
        );
      }
      const first = rows[0] as (typeof rows)[number];
      return {
        kid,
        alg: first.alg,
        public_key_b64: first.publicKeyB64,
        bindings: rows.map((r) => ({
          subject: r.subject,
          role: r.role,
          evidence: r.evidence,
          bound_at: r.boundAt,
          expires_at: r.expiresAt,
        })),
      };
    },
  );
}
