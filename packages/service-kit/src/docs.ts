// OpenAPI document generated from the route schemas, served with Swagger UI at /docs (JSON at /docs/json).
// docs/architecture.md §3 (routes declare JSON Schemas; the same schemas produce the OpenAPI document).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export interface DocsOptions {
  readonly title: string;
  readonly version: string;
  readonly description?: string;
}

/** Must be registered before the routes it documents. */
export async function installDocs(app: FastifyInstance, options: DocsOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: options.title,
        version: options.version,
        ...(options.description ? { description: options.description } : {}),
      },
      // P206: a route marks its operator-only operations with `security: [{ bearerAuth: [] }]` (D22); without
      // the scheme defined here @fastify/swagger fails the whole document, and /docs/json answered 500.
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'the operator token (D22)' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
}
