// Integers in the log's URLs (indices, tree sizes, page bounds) are read as plain decimal only. Fastify's
// schema coercion reads "0x10" as 16, "1e1" as 10, " 1", "+1", "01" and "1.0" as 1, and "1e400" as
// Infinity, which slips past `maximum` and reached the store as a 500. Brief "redservices", P151.
import type { ProtocolProfile } from '@proto/core';
import { httpError, protocolError } from '@proto/service-kit';
import type { FastifyRequest } from 'fastify';
import { INDEX } from './route-schemas.ts';

/** At most 16 digits: anything longer is above 2^53 - 1, which the schema's `maximum` then refuses. */
const DECIMAL = /^(?:0|[1-9][0-9]{0,15})$/;

type Schema = { readonly properties?: Readonly<Record<string, unknown>> } | undefined;

/** Names of the members `schema` declares with the INDEX schema. */
function indexMembers(schema: unknown): string[] {
  const properties = (schema as Schema)?.properties ?? {};
  return Object.keys(properties).filter((name) => properties[name] === INDEX);
}

function firstNonDecimal(values: unknown, names: readonly string[]): string | undefined {
  const record = (values ?? {}) as Record<string, unknown>;
  // An array (a repeated query member) is left to the schema, which refuses it as not an integer.
  return names.find((name) => typeof record[name] === 'string' && !DECIMAL.test(record[name]));
}

/**
 * A `preValidation` hook (it sees the raw strings, before coercion): a member declared with INDEX in the
 * route's params or querystring must be spelled in plain decimal; 400 INVALID_ID in the path, E001 in the query.
 */
export function decimalIndexes(profile: ProtocolProfile) {
  return async (request: FastifyRequest): Promise<void> => {
    const schema = request.routeOptions.schema;
    if (schema === undefined) return;
    const inPath = firstNonDecimal(request.params, indexMembers(schema.params));
    if (inPath !== undefined)
      throw httpError('INVALID_ID', `Invalid identifier in path: ${inPath} must be a decimal integer`);
    const inQuery = firstNonDecimal(request.query, indexMembers(schema.querystring));
    if (inQuery !== undefined) {
      throw protocolError(
        'BUNDLE_SCHEMA_INVALID',
        profile,
        `Request querystring is invalid: ${inQuery} must be a decimal integer`,
        { statusCode: 400 },
      );
    }
  };
}
