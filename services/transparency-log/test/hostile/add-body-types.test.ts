// P259: POST /add's `bundle_hash` is a JSON string. Fastify validated bodies with `coerceTypes: 'array'`, so a
// one-element array was read as its element and the operator's `{"bundle_hash": ["sha256:…"]}` was appended (201).
// Now bodies are validated without coercion in service-kit: another JSON type is 400 PROTO-E001 naming the member,
// and nothing is appended. The real log over HTTP.
import { describe, expect, it } from 'vitest';
import { bundleHash, OPERATOR_AUTH } from '../../src/test-support.ts';
import { listeningLogForFile } from './test-helpers.ts';

const log = listeningLogForFile('add-body-types');

const add = async (body: unknown) => {
  const res = await fetch(`${log().url}/add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...OPERATOR_AUTH },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { error?: { code: string; message: string } } };
};

describe('P259: POST /add takes bundle_hash as a string only', () => {
  it.each([
    ['a one-element array', (h: string) => [h]],
    ['a nested one-element array', (h: string) => [[h]]],
  ])('bundle_hash as %s is 400 PROTO-E001, and nothing is appended', async (what, wrap) => {
    const h = bundleHash(1, `add body types: ${what}`);
    const refused = await add({ bundle_hash: wrap(h) });
    expect(refused.status).toBe(400);
    expect(refused.json.error?.code).toBe('PROTO-E001');
    expect(refused.json.error?.message).toContain('bundle_hash');
    // Not in the log: the same hash as a string is new (201), not found again (200).
    expect((await add({ bundle_hash: h })).status).toBe(201);
  });

  it.each([
    ['a number', 7],
    ['a boolean', true],
    ['null', null],
  ])(
    'bundle_hash as %s is 400 PROTO-E001 naming it (a schema error, not a pattern error)',
    async (_what, value) => {
      const refused = await add({ bundle_hash: value });
      expect(refused.status).toBe(400);
      expect(refused.json.error?.code).toBe('PROTO-E001');
      expect(refused.json.error?.message).toContain('bundle_hash must be string');
    },
  );
});
