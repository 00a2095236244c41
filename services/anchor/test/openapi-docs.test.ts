// GET /docs/json of the anchor service: the OpenAPI document its routes' schemas produce (SPEC: every service
// serves /docs). POST /anchor declares the operator's bearer token, so the document must define that scheme; it
// did not, and @fastify/swagger failed the whole document with a 500 (found by P195's header tests).
import type { Store } from '@proto/store';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { listenOnPort0 } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testApp } from '../src/testing/app.ts';

let target: StoreTarget;
let store: Store;
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  target = await createStoreTarget('sqlite', 'anchor-docs');
  store = await target.open();
  app = await testApp({}, store);
  url = (await listenOnPort0(app)).url;
});
afterAll(async () => {
  await app?.close();
  await target?.cleanup();
});

it('serves its OpenAPI document, with POST /anchor behind the bearer scheme it defines', async () => {
  const answer = await fetch(`${url}/docs/json`);
  expect(answer.status, await answer.clone().text()).toBe(200);
  const doc = (await answer.json()) as {
    openapi: string;
    paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
    components?: { securitySchemes?: Record<string, { type: string; scheme?: string }> };
  };
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.paths['/anchor']?.['post']?.security).toEqual([{ bearerAuth: [] }]);
  expect(doc.components?.securitySchemes?.['bearerAuth']).toMatchObject({ type: 'http', scheme: 'bearer' });
  const ui = await fetch(`${url}/docs`, { redirect: 'follow' });
  expect(ui.status).toBe(200);
});
