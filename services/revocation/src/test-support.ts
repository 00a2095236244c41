// Test support: the real revocation service in-process on an ephemeral port, with a request recorder.
// Used by the end-to-end tests of D20–D22; not part of the service's public API.
import { createHash, randomBytes } from 'node:crypto';
import type { StoreOptions } from '@proto/store';
import { listenOnPort0, tempDirSync } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { buildRevocationApp } from './app.ts';
import { loadRevocationConfig } from './config.ts';

export const TOKEN = 'test-operator-token-0123456789';
export const JURISDICTION = 'FR';
export const ISSUER = 'did:web:revocation.example.fr';

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly ifNoneMatch: string | undefined;
  readonly status: number;
}

export interface RunningService {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly listUrl: string;
  readonly dataDir: string;
  /** Every request the server answered, in order. */
  readonly seen: SeenRequest[];
  readonly logs: string[];
  close(): Promise<void>;
}

export interface StartOptions {
  readonly env?: Record<string, string>;
  /** Reuse a DATA_DIR (restart); default a fresh temporary folder. */
  readonly dataDir?: string;
  readonly store?: Partial<StoreOptions>;
  readonly timer?: boolean;
  /** The service's clock (default the real one): lists, attestations and registrations read it. */
  readonly clock?: () => Date;
}

export function tempDir(label: string): { dir: string; remove(): void } {
  return tempDirSync(`revocation-${label}`);
}

export async function startService(options: StartOptions = {}): Promise<RunningService> {
  const dataDir = options.dataDir ?? tempDir('svc').dir;
  const logs: string[] = [];
  const config = loadRevocationConfig({
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    OPERATOR_TOKEN: TOKEN,
    ISSUER,
    JURISDICTION,
    MAX_EVENT_LOOP_DELAY_MS: '0',
    // P582: tests read /ready and /metrics right after changing a dependency; the code's 1000 would hide it.
    PROBE_REUSE_MS: '0',
    ...options.env,
  });
  const app = await buildRevocationApp({
    config,
    logger: { stream: { write: (line: string) => logs.push(line) } },
    ...(options.store ? { store: options.store } : {}),
    ...(options.timer === undefined ? {} : { timer: options.timer }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const seen: SeenRequest[] = [];
  app.addHook('onResponse', async (request, reply) => {
    const inm = request.headers['if-none-match'];
    seen.push({ method: request.method, url: request.url, ifNoneMatch: inm, status: reply.statusCode });
  });
  const { url: address } = await listenOnPort0(app);
  return {
    app,
    url: address,
    listUrl: `${address}${app.protocolProfile.wellKnown.revocations}`,
    dataDir,
    seen,
    logs,
    close: () => app.close(),
  };
}

export interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown>;
  readonly headers: Headers;
}

async function send(
  service: RunningService,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Answer> {
  const sent: Record<string, string> = { ...headers };
  if (body !== undefined) sent['content-type'] = 'application/json';
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: sent,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
    headers: res.headers,
  };
}

export function call(
  service: RunningService,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = TOKEN,
): Promise<Answer> {
  return send(service, method, path, body, token === null ? {} : { authorization: `Bearer ${token}` });
}

/**
 * A JSON POST without the operator's token, as anyone may send to the emergency and attestation-free routes;
 * `headers` adds to it (`x-forwarded-for` for the per-client budgets).
 */
export function postWithoutToken(
  service: RunningService,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return send(service, 'POST', path, body, headers);
}

/** The `payload_hash` of a sample bundle's RPR: what POST /attest binds an agent id to (D21). */
export function rprHashOf(sample: { readonly signed_bundle: unknown }): string {
  return (sample.signed_bundle as { bundle: { responsible_principal_record: { payload_hash: string } } })
    .bundle.responsible_principal_record.payload_hash;
}

export function revoke(service: RunningService, agentId: string, reason = 'key compromise') {
  return call(service, 'POST', '/revocations', { agent_id: agentId, reason });
}

export async function currentList(
  service: RunningService,
): Promise<Record<string, unknown> & { list_number: number }> {
  const res = await fetch(service.listUrl);
  return (await res.json()) as Record<string, unknown> & { list_number: number };
}

/** An emergency revocation secret (32 random bytes, hex) and the passport token it hashes to (PROTOCOL §9.5). */
export interface EmergencySecret {
  readonly hex: string;
  readonly token: string;
}

export function newEmergencySecret(): EmergencySecret {
  const bytes = randomBytes(32);
  return { hex: bytes.toString('hex'), token: `sha256:${createHash('sha256').update(bytes).digest('hex')}` };
}

/** An `emergency_revocation` record (PROTOCOL §9.5) using `secretHex` for `agentId`, as a holder of it sends one. */
export function emergencyRevocationRecord(agentId: string, secretHex: string) {
  return {
    type: 'emergency_revocation',
    agent_id: agentId,
    human_id: 'human-emergency-test',
    revocation_secret: secretHex,
    timestamp: new Date().toISOString(),
    reason: 'key_compromise_emergency',
  };
}

/** POST /emergency-revocations for `agentId` with `secretHex` (no operator token: the secret is the credential). */
export function useEmergencySecret(service: RunningService, agentId: string, secretHex: string) {
  return call(service, 'POST', '/emergency-revocations', emergencyRevocationRecord(agentId, secretHex), null);
}
