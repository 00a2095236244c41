// Request bodies are validated as sent (P259). Fastify's Ajv runs with `coerceTypes: 'array'`, for every part of a
// request: a body member declared `type: string` took a one-element array as its element (`{"bundle_hash":
// ["sha256:…"]}` was appended to the log, `{"agent_id": ["…"]}` revoked the agent), a lone string became a
// one-element array, and a number, a boolean or null became text. A JSON or CBOR body has its own types, so a body
// is validated with coercion off; the query string, the path's parameters and headers are text, and keep it (a
// `tree_size` or `version` declared an integer is read from its digits).
// A body member its schema does not name is refused, not deleted (P270): Fastify's default `removeAdditional: true`
// dropped it silently, so a typo or a member a client believed honoured changed nothing and the write went on.
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifySchemaCompiler } from 'fastify';

type BuildValidator = ReturnType<typeof AjvCompiler>;
/** What Fastify passes the compiler at run time (the package's own types say a bare schema). */
type RouteSchema = Parameters<FastifySchemaCompiler<unknown>>[0];
type Compile = FastifySchemaCompiler<unknown>;

/** Header names are case-insensitive: Fastify lowercases a headers schema's names itself only for its own compiler. */
function lowerCaseHeaders(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  const { properties, required, ...rest } = schema as { properties?: object; required?: unknown };
  return {
    ...rest,
    ...(properties === undefined
      ? {}
      : {
          properties: Object.fromEntries(
            Object.entries(properties).map(([name, value]) => [name.toLowerCase(), value]),
          ),
        }),
    ...(Array.isArray(required) ? { required: required.map((name) => String(name).toLowerCase()) } : {}),
  };
}

/**
 * `schemaController.compilersFactory.buildValidator`: Fastify's own Ajv compiler twice over the same shared schemas
 * and options, one with `coerceTypes: false` and `removeAdditional: false` for bodies, the default for the other parts.
 */
export function strictBodyValidators(): BuildValidator {
  const texts = AjvCompiler();
  const bodies = AjvCompiler();
  const build: BuildValidator = (externalSchemas, options) => {
    const forTexts = texts(externalSchemas, options) as unknown as Compile;
    const forBodies = bodies(externalSchemas, {
      ...options,
      customOptions: { ...options?.customOptions, coerceTypes: false, removeAdditional: false },
    } as typeof options) as unknown as Compile;
    const compile = (route: RouteSchema) => {
      if (route.httpPart === 'body') return forBodies(route);
      if (route.httpPart === 'headers') return forTexts({ ...route, schema: lowerCaseHeaders(route.schema) });
      return forTexts(route);
    };
    return compile as unknown as ReturnType<BuildValidator>;
  };
  return build;
}
