// The write routes a body the services must not misread is sent to (P160, P175): the revocation service's
// POST /revocations and the verification service's /verify, both real, over HTTP, started together. Named
// test-helpers.ts so the layer rules count it as test code (only test code may start another service).
import { requestAsIs } from '@proto/testing';
import { type RunningApp, startApp } from '@proto/verification/testing';
import { afterAll, beforeAll } from 'vitest';
import { type RunningService, startService, TOKEN } from '../../src/test-support.ts';

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

/** The write routes, started before the calling file's tests and closed after them; read them inside a test. */
export function writeRoutesForFile(): () => WriteRoutes {
  let routes: WriteRoutes | undefined;
  beforeAll(async () => {
    routes = await startWriteRoutes();
  });
  afterAll(async () => {
    await routes?.close();
  });
  return () => {
    if (routes === undefined) throw new Error('the write routes did not start');
    return routes;
  };
}

export const authorization = `Bearer ${TOKEN}`;

/** A POST with the headers exactly as given: fetch would add its own charset handling, refuse or rewrite some. */
export const postAsIs = (url: string, body: Buffer, headers: Record<string, string>) =>
  requestAsIs(url, { body, headers });

/** POST /revocations with the operator's token and the headers given, as they are given. */
export const postRevocation = (routes: WriteRoutes, body: Buffer, headers: Record<string, string>) =>
  postAsIs(`${routes.revocation.url}/revocations`, body, { authorization, ...headers });

/** The status the revocation service's own look-up of `agent` answers: 404 while it is not revoked. */
export async function lookUpStatus(routes: WriteRoutes, agent: string): Promise<number> {
  const lookedUp = await fetch(`${routes.revocation.url}/revocations/${encodeURIComponent(agent)}`, {
    headers: { authorization },
  });
  await lookedUp.arrayBuffer();
  return lookedUp.status;
}

/** A revocation of `agent` as POST /revocations takes it, as bytes a test sends with headers of its own. */
export const revocationBody = (agent: string) =>
  Buffer.from(JSON.stringify({ agent_id: agent, reason: 'key compromise' }));

/** The revocation service with `env`, started before the calling describe's tests and closed after them. */
export function serviceForDescribe(env: Record<string, string>): () => RunningService {
  let service: RunningService | undefined;
  beforeAll(async () => {
    service = await startService({ env, timer: false });
  });
  afterAll(async () => {
    await service?.close();
  });
  return () => {
    if (service === undefined) throw new Error('the revocation service did not start');
    return service;
  };
}
