// One bundle's answer from POST /verify or POST /verify/batch, in JSON or CBOR, as the P490–P503 tests replay the same
// bundle through every route and wire format of the real service.
import { decodeCbor, encodeCbor } from '@proto/service-kit';
import { expect } from 'vitest';

type Json = Record<string, unknown>;
export type VerifyPath = '/verify' | '/verify/batch';
export type WireFormat = 'json' | 'cbor';

/** Every route and wire format, for `it.each`. */
export const ROUTES_AND_FORMATS = (['/verify', '/verify/batch'] as const).flatMap((path) =>
  (['json', 'cbor'] as const).map((format) => [path, format] as const),
);

/** POSTs `body` to `url` + `path` in `format` (a batch of one line); expects 200; the decoded answer. */
export async function verifyAnswer(
  url: string,
  path: VerifyPath,
  body: Json,
  format: WireFormat,
): Promise<Json> {
  const batch = path === '/verify/batch';
  const type =
    format === 'cbor'
      ? batch
        ? 'application/cbor-seq'
        : 'application/cbor'
      : batch
        ? 'application/x-ndjson'
        : 'application/json';
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': type, accept: type },
    body: format === 'cbor' ? encodeCbor(body) : `${JSON.stringify(body)}${batch ? '\n' : ''}`,
  });
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  return (format === 'cbor' ? decodeCbor(bytes) : JSON.parse(bytes.toString('utf8'))) as Json;
}
