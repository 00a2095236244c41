// The real anchor service over HTTP on a fresh SQLite store, for the tests of POST /anchor bodies as a client sends
// them (P251 types, P270 members): POST /anchor only queues, so nothing need listen at the configured URLs.
import { createStoreTarget } from '@proto/store/testing';
import { expect } from 'vitest';
import { OPERATOR, testApp } from '../../../src/testing/app.ts';

/** Nothing listens on port 9. */
export const NOWHERE = 'http://127.0.0.1:9';

type Answer = { status: number; body: Record<string, Record<string, unknown>> };

export interface AnchorPosts {
  /** POST /anchor with the operator's token and `body` as JSON. */
  post(body: Record<string, unknown>): Promise<Answer>;
  /** GET /anchor/<bundleHash>'s status: 404 while nothing was queued for it. */
  queued(bundleHash: string): Promise<number>;
  close(): Promise<void>;
}

/** Starts the service (`env` over the test defaults) on a store named after `label`, listening on loopback. */
export async function startAnchorPosts(label: string, env: Record<string, string>): Promise<AnchorPosts> {
  const target = await createStoreTarget('sqlite', label);
  const app = await testApp(env, await target.open());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  return {
    post: async (body) => {
      const res = await fetch(`${base}/anchor`, {
        method: 'POST',
        headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Answer['body'] };
    },
    queued: async (bundleHash) => (await fetch(`${base}/anchor/${bundleHash}`)).status,
    close: async () => {
      await app.close();
      await target.cleanup();
    },
  };
}

/** A 400 PROTO-E001, not retryable, whose message contains `named` (the member refused). */
export function expectRefusalNaming(answer: Answer, named: string): void {
  expect(answer.status).toBe(400);
  expect(answer.body['error']).toMatchObject({ code: 'PROTO-E001', retryable: false });
  expect(String(answer.body['error']?.['message'])).toContain(named);
}
