// Brief "cbor3" (P590): every body-taking route of the revocation service refuses the same hostile CBOR and JSON
// bodies (duplicate keys, values JSON has no form for, tags, indefinite lengths, lying lengths, prototype members, lone
// surrogates, 1e400, UTF-16) with 400 PROTO-E001 in its reader's words, and stores nothing. The real service over HTTP;
// POST /emergency-tokens reads its bytes on a verification thread (P576), the other routes through the kit's parsers.
import { hostileBodies, hostileMismatches } from '@proto/testing';
import { describe, expect, it } from 'vitest';
import { TOKEN } from '../../src/test-support.ts';
import { serviceForDescribe } from './test-helpers.ts';

const AGENT = 'agent-cbor3-0001';
const operator = { authorization: `Bearer ${TOKEN}` };
const TOKEN_HASH = `sha256:${'ab'.repeat(32)}`;

describe('P590: hostile bodies on every revocation route', () => {
  const service = serviceForDescribe({
    EMERGENCY_REGISTRATION: 'bundle',
    EMERGENCY_MAX_PER_IP: '100000',
    EMERGENCY_MAX_PER_AGENT: '100000',
    EMERGENCY_REGISTRATIONS_PER_IP: '100000',
  });

  it.each([
    ['POST /revocations', 'POST', '/revocations', operator, { agent_id: AGENT, reason: 'key compromise' }],
    ['POST /attest', 'POST', '/attest', operator, { agent_id: AGENT, rpr_hash: TOKEN_HASH }],
    [
      'PUT /emergency-tokens/:agent_id',
      'PUT',
      `/emergency-tokens/${AGENT}`,
      operator,
      { emergency_revocation_token: TOKEN_HASH },
    ],
    ['POST /emergency-tokens (read on a thread)', 'POST', '/emergency-tokens', {}, { signed_bundle: 'x' }],
    [
      'POST /emergency-revocations',
      'POST',
      '/emergency-revocations',
      {},
      { agent_id: AGENT, type: 'emergency_revocation', reason: 'x', revocation_secret: 'ab'.repeat(32) },
    ],
  ])(
    '%s: every hostile body is 400 E001 (415 for a foreign charset)',
    async (_name, method, path, headers, base) => {
      const mismatches = await hostileMismatches(`${service().url}${path}`, hostileBodies(base), {
        method,
        headers,
      });
      expect(mismatches).toEqual([]);
    },
  );

  it('nothing was stored: the agent is not revoked, and its first emergency token is created now', async () => {
    const revoked = await fetch(`${service().url}/revocations/${AGENT}`, { headers: operator });
    expect(revoked.status).toBe(404);
    const token = await fetch(`${service().url}/emergency-tokens/${AGENT}`, {
      method: 'PUT',
      headers: { ...operator, 'content-type': 'application/json' },
      body: JSON.stringify({ emergency_revocation_token: TOKEN_HASH }),
    });
    expect(token.status).toBe(201);
  });
});
