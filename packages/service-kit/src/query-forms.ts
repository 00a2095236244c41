// A query member is `name=value`, once (P595). Fastify's parser keeps `tree_size[]=10` under the key `tree_size[]`,
// a member no route schema names, so the route answered as if it were absent (the log's proof at the current size),
// while a cache or proxy reading the qs form saw `tree_size: ["10"]`; a repeated member became an array, which each
// route refused, read first-wins or ignored on its own terms. Every service now refuses both forms alike.
import type { ProtocolProfile } from '@proto/core';
import { type HttpError, protocolError } from './http-errors.ts';

/** A member name worth quoting back: anything else is the caller's text and is not echoed. */
const PLAIN_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

function quoted(key: string): string {
  const name = key.split('[', 1)[0] ?? '';
  return PLAIN_NAME.test(name) ? name : 'a member';
}

/** The refusal of a query whose member is written twice or in array/object form (`a[]=`, `a[0]=`, `a[b]=`). */
export function queryFormRefusal(query: unknown, profile: ProtocolProfile): HttpError | undefined {
  if (typeof query !== 'object' || query === null) return undefined;
  for (const [key, value] of Object.entries(query)) {
    const bracketed = key.includes('[') || key.includes(']');
    if (!bracketed && !Array.isArray(value)) continue;
    const how = bracketed ? 'in array or object form' : 'more than once';
    return protocolError(
      'BUNDLE_SCHEMA_INVALID',
      profile,
      `Request querystring is invalid: ${quoted(key)} is written ${how}; write each member once, as name=value`,
      { statusCode: 400 },
    );
  }
  return undefined;
}
