// P270: POST /add's body is `{bundle_hash}` (SPEC.md "Transparency log service"), nothing else. A member beside it
// (a `timestamp` the caller hopes is stored, a misspelt `bundle_hsh` beside the real one) was ignored and the hash
// appended (201). Now 400 PROTO-E001 naming the member, nothing appended. The real log over HTTP.
import { describe, expect, it } from 'vitest';
import { bundleHash, OPERATOR_AUTH } from '../../src/test-support.ts';
import { listeningLogForFile } from './test-helpers.ts';

const log = listeningLogForFile('add-unknown-members');

const add = async (body: unknown) => {
  const res = await fetch(`${log().url}/add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...OPERATOR_AUTH },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { error?: { code: string; message: string } } };
};

describe('P270: POST /add refuses members it does not read', () => {
  it.each([
    ['timestamp', '2001-01-01T00:00:00Z'],
    ['log_index', 0],
  ])(
    'a %s beside bundle_hash is 400 PROTO-E001 naming it, and nothing is appended',
    async (member, value) => {
      const h = bundleHash(1, `add unknown member: ${member}`);
      const refused = await add({ bundle_hash: h, [member]: value });
      expect(refused.status).toBe(400);
      expect(refused.json.error?.code).toBe('PROTO-E001');
      expect(refused.json.error?.message).toContain(`"${member}"`);
      // Not in the log: the same hash alone is new (201), not found again (200).
      expect((await add({ bundle_hash: h })).status).toBe(201);
    },
  );
});
