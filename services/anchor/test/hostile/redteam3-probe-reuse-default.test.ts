// P582: PROBE_REUSE_MS (P525) bounds what anyone's GET /ready and GET /metrics, one after another, cost the chains'
// APIs and the store. It was 0 in the code and 1000 only in the Kubernetes manifests, so the docker compose file
// (which does not set it) and a bare `node main.ts` ran with no window: each anonymous probe one more paid RPC call.
// Now the code's default is the manifests' 1000; the tests' own helpers set 0.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadAnchorConfig } from '../../src/config.ts';

describe('P582: a deployment that does not set PROBE_REUSE_MS reuses a settled probe for a second', () => {
  it('the anchor service loaded as docker compose starts it (no PROBE_REUSE_MS) has a 1000 ms window', () => {
    const compose = readFileSync(new URL('../../../../docker/docker-compose.yml', import.meta.url), 'utf8');
    expect(compose).not.toContain('PROBE_REUSE_MS');
    const config = loadAnchorConfig({
      OPERATOR_TOKEN: 'operator-token-for-tests-0123456789',
      DATA_DIR: '/tmp',
    });
    expect(config.PROBE_REUSE_MS).toBe(1000);
  });
});
