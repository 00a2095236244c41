// The write routes a body the services must not misread is sent to (P160, P175): the revocation service's
// POST /revocations and the verification service's /verify, both real, over HTTP, started together. Named
// test-helpers.ts so the layer rules count it as test code (only test code may start another service).
import { type RunningApp, startApp } from '@proto/verification/testing';
import { type RunningService, startService } from '../../src/test-support.ts';

export interface WriteRoutes {
  readonly revocation: RunningService;
  readonly verification: RunningApp;
  close(): Promise<void>;
}

export async function startWriteRoutes(): Promise<WriteRoutes> {
  const [revocation, verification] = await Promise.all([
    startService({ timer: false }),
    startApp({ VERIFY_WORKERS: '1' }),
  ]);
  return {
    revocation,
    verification,
    close: async () => {
      await Promise.all([revocation.close(), verification.close()]);
    },
  };
}

/** A revocation of `agent` as POST /revocations takes it, as bytes a test sends with headers of its own. */
export const revocationBody = (agent: string) =>
  Buffer.from(JSON.stringify({ agent_id: agent, reason: 'key compromise' }));
