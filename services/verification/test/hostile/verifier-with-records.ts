// The real verification service with the /v2 records mounted on a store of each dialect under test, as the
// key-directory attacks replay against it (a thief's far-future passport, a dropped key, a directory flood): POST
// /verify feeds the key directory, GET /v2/keys/<kid> shows what it holds.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BuiltBundle,
  type BundleKeySet,
  buildSignedBundle,
  createNativeBackend,
  keyEntry,
  PROFILES,
  recordSignatureRule,
  type SigningKey,
  signRecord,
} from '@proto/core';
import type { Store, StoreDialect } from '@proto/store';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { expect } from 'vitest';
import { loadVerificationConfig } from '../../src/config.ts';
import { mountRecords } from '../../src/records/plugin.ts';
import { example, type Json, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import { keyOnceItAnswers, type RunningApp, startApp } from '../../src/test-support.ts';

/** The service's store variables for `target`: its SQLite file under DATA_DIR, or its PostgreSQL schema. */
export function storeEnvOf(target: StoreTarget, dataDir: string): Record<string, string> {
  return target.options.pgSchema === undefined
    ? { DATA_DIR: target.options.dataDir as string }
    : {
        DATA_DIR: dataDir,
        DATABASE_URL: target.options.databaseUrl as string,
        DATABASE_SCHEMA: target.options.pgSchema,
      };
}

export interface VerifierWithRecords {
  readonly url: string;
  /** POST `body` as JSON to `path` (with `headers`, e.g. the operator token); the status, JSON answer and headers. */
  post(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: Json; headers: Headers }>;
  /** GET /v2/keys/<kid>'s status now. */
  keyStatus(kid: string): Promise<number>;
  /** GET /v2/keys/<kid>'s status once it is `status` (the directory is written after the answer), or at timeout. */
  keyStatusOnce(kid: string, status: number, timeoutMs?: number): Promise<number>;
  /**
   * Closes the service and starts it again on the same store, its variables overridden by `env` (an operator's
   * changed setting, e.g. a lower MAX_KEY_AGE_DAYS); `url` is the new service's from then on.
   */
  restart(env?: Record<string, string>): Promise<void>;
  /**
   * A second store on the service's database (as another replica would open it), to read what no route answers
   * (an agent's lifecycle history, the key directory's rows); opened once, closed with the service.
   */
  replica(): Promise<Store>;
  /**
   * Another running replica of the service on the same store and variables (a second instance behind the load
   * balancer); its URL. Closed with the service.
   */
  secondReplica(): Promise<string>;
  /** Closes the service and removes its store. */
  close(): Promise<void>;
}

/**
 * Starts the service on a fresh store of `dialect` named after `label`; `env` is read by both service and records.
 * `seed` writes into the service's store before it starts (the store as an earlier service left it, e.g. an agent
 * commissioned years ago, which P207's floor needs for moves dated then).
 */
export async function startVerifierWithRecords(
  dialect: StoreDialect,
  label: string,
  env: Record<string, string> = {},
  seed?: (store: Store) => Promise<void>,
): Promise<VerifierWithRecords> {
  const target = await createStoreTarget(dialect, label);
  const dataDir = await mkdtemp(join(tmpdir(), `proto-${label}-`));
  let running: RunningApp | undefined;
  const others: RunningApp[] = [];
  let serviceEnv: Record<string, string> = {};
  const close = async () => {
    await Promise.all(others.splice(0).map((other) => other.close()));
    await running?.close();
    running = undefined;
    await target.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  };
  const launch = async () => {
    // The service's own validated configuration feeds the records, as main.ts does (REVOCATION_SOURCES included).
    const mounted = await mountRecords(
      loadVerificationConfig({ ...serviceEnv, HOST: '127.0.0.1', PORT: '0' }),
    );
    return startApp({ ...serviceEnv, VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0' }, [mounted]);
  };
  const start = async () => {
    running = await launch();
    return running.url;
  };
  let url: string;
  try {
    if (seed !== undefined) {
      const store = await target.open({ name: 'verification' }); // the service's SQLite file; PostgreSQL: its schema
      await seed(store);
      await store.close();
    }
    serviceEnv = { ...storeEnvOf(target, dataDir), ...env };
    url = await start();
  } catch (error) {
    await close();
    throw error;
  }
  let reader: Promise<Store> | undefined;
  return {
    get url() {
      return url;
    },
    restart: async (changed = {}) => {
      await running?.close();
      running = undefined;
      serviceEnv = { ...serviceEnv, ...changed };
      url = await start();
    },
    post: async (path, body, headers = {}) => {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Json, headers: res.headers };
    },
    keyStatus: async (kid) => {
      const res = await fetch(`${url}/v2/keys/${kid}`);
      await res.arrayBuffer();
      return res.status;
    },
    keyStatusOnce: async (kid, status, timeoutMs) => {
      const res = await keyOnceItAnswers(url, kid, status, timeoutMs);
      await res.arrayBuffer();
      return res.status;
    },
    replica: () => {
      reader ??= target.open({ name: 'verification' }); // closed by the target's cleanup
      return reader;
    },
    secondReplica: async () => {
      const other = await launch();
      others.push(other);
      return other.url;
    },
    close,
  };
}

const backend = createNativeBackend();

/** The signing keys of a key set, as signRecord takes them (the PQ half only where the set has one). */
export const signingKeys = (set: BundleKeySet): { classical: SigningKey; pq?: SigningKey } => ({
  classical: set.classical,
  ...(set.pq === undefined ? {} : { pq: set.pq }),
});

/** A party of a built bundle: its agent and human ids and the keys of its agent and of its principal. */
export function partyOf(built: BuiltBundle) {
  const bundle = built.signed_bundle['bundle'] as Json;
  return {
    built,
    agentId: ((bundle['agent_passport'] as Json)['payload'] as Json)['agent_id'] as string,
    humanId: ((bundle['responsible_principal_record'] as Json)['payload'] as Json)['human_id'] as string,
    agentKeys: signingKeys(built.keys.agent),
    principalKeys: signingKeys(built.keys.principal),
  };
}

/** The example commissioning certificate for these ids, signed with `keys`. */
export const commissioningCertificate = (ids: { agentId: string; humanId: string }, keys: BundleKeySet) =>
  signRecord(
    backend,
    PROFILES.proto,
    'commissioning_certificate',
    withFields(example('commissioning_certificate'), { agent_id: ids.agentId, human_id: ids.humanId }),
    signingKeys(keys),
  );

/** `party`'s bundle verified on `service` (POST /verify), waited for until its agent's key is bound. */
export async function verifyParty(service: VerifierWithRecords, party: Party): Promise<Party> {
  const answer = await service.post('/verify', { signed_bundle: party.built.signed_bundle });
  expect(answer.json['verified'], JSON.stringify(answer.json).slice(0, 500)).toBe(true);
  expect(await service.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
  return party;
}

/**
 * Starts the service as startVerifierWithRecords does, with the operator's token (TEST_OPERATOR_TOKEN) unless `env`
 * names another, and verifies each of `parties` on it (their agent keys bound).
 */
export async function startWithParties(
  dialect: StoreDialect,
  label: string,
  env: Record<string, string>,
  parties: readonly Party[],
): Promise<VerifierWithRecords> {
  const service = await startVerifierWithRecords(dialect, label, {
    OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    ...env,
  });
  try {
    for (const party of parties) await verifyParty(service, party);
  } catch (error) {
    await service.close();
    throw error;
  }
  return service;
}

/**
 * The agent of `party`'s own bundle, verified on `service` (its key bound) and commissioned by that key; its moves
 * signed by the same key, and its state as GET /v2/lifecycle/commission/<id> answers it.
 */
export async function commissionOwnAgent(service: VerifierWithRecords, party: ReturnType<typeof partyOf>) {
  await verifyParty(service, party);
  const certificate = commissioningCertificate(party, party.built.keys.agent);
  expect((await service.post('/v2/lifecycle/commission', certificate)).status).toBe(201);
  return {
    move: (fields: Json) =>
      service.post(
        '/v2/lifecycle/transition',
        signRecord(backend, PROFILES.proto, 'lifecycle_transition', fields, party.agentKeys),
      ),
    state: async () => {
      const res = await fetch(`${service.url}/v2/lifecycle/commission/${party.agentId}`);
      return ((await res.json()) as Json)['state'];
    },
  };
}

/**
 * A bundle built a minute ago whose agent passport also lists each of `listed` as an active key it never used, created
 * at the time given (the key-age attacks: P204, P230, P231).
 */
export function bundleListing(listed: readonly { keys: BundleKeySet; createdAt: string }[]): BuiltBundle {
  return buildSignedBundle({
    now: new Date(Date.now() - 60_000),
    hooks: {
      payloads: (payloads) => {
        const keys = (payloads.agent_passport as Json)['keys'] as Json[];
        for (const { keys: set, createdAt } of listed) {
          keys.push({ ...keyEntry(set.classical, createdAt, null), status: 'active' });
        }
      },
    },
  });
}

type Party = ReturnType<typeof partyOf>;
/** Signing keys of a party (its agent's or its principal's). */
export type PartyKeys = Party['agentKeys'];
/** The operator's bearer header (D22): an administrative write. */
export const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` } as const;

/**
 * The disputes and arbitration panels the records-* tests replay (P297 and on): a verifier whose operator appointed
 * three arbitrators (`first`, `second`, `third`) with a quorum of two unless `env` says otherwise, the two parties and
 * the three members verified (their keys bound), and the helpers each of those tests wrote for itself.
 */
export interface PanelFixture {
  readonly service: VerifierWithRecords;
  readonly initiator: Party;
  readonly respondent: Party;
  readonly first: Party;
  readonly second: Party;
  readonly third: Party;
  /** An answer's JSON, cut short, for an assertion's message. */
  shown(answer: { json: Json }): string;
  sign(kind: string, record: Json, keys: PartyKeys): Json;
  get(path: string): Promise<{ status: number; json: Json }>;
  /** The initiator files dispute `id` against the respondent (`fields` over the example's); expects 201. */
  file(id: string, fields?: Json): Promise<void>;
  /** A resolution of dispute `id` naming the three members, its text `text`, signed with `keys`. */
  resolution(id: string, text: string, keys: PartyKeys, fields?: Json): Json;
  /** POST /v2/dispute/arbitration (with `headers`, e.g. OPERATOR). */
  resolve(record: Json, headers?: Record<string, string>): Promise<{ status: number; json: Json }>;
  /** GET /v2/dispute/record/<id>'s JSON. */
  disputeOf(id: string): Promise<Json>;
}

/**
 * Starts the panel fixture on `dialect`: `parties` overrides a party's bundle (e.g. a member whose passport lists
 * another member's key), `env` adds to or overrides the service's variables.
 */
export async function startPanelFixture(
  dialect: StoreDialect,
  label: string,
  env: Record<string, string> = {},
  parties: Partial<Record<'initiator' | 'respondent' | 'first' | 'second' | 'third', BuiltBundle>> = {},
): Promise<PanelFixture> {
  const [initiator, respondent, first, second, third] = (
    ['initiator', 'respondent', 'first', 'second', 'third'] as const
  ).map((name) => partyOf(parties[name] ?? buildSignedBundle())) as [Party, Party, Party, Party, Party];
  const service = await startVerifierWithRecords(dialect, label, {
    OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    RECORDS_ARBITRATORS: [first, second, third].map((p) => p.agentId).join(','),
    RECORDS_PANEL_QUORUM: '2',
    ...env,
  });
  try {
    for (const party of [initiator, respondent, first, second, third]) {
      await verifyParty(service, party);
      expect(await service.keyStatusOnce(party.principalKeys.classical.kid, 200)).toBe(200);
    }
  } catch (error) {
    await service.close();
    throw error;
  }
  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 500);
  const sign = (kind: string, record: Json, keys: PartyKeys) =>
    signRecord(backend, PROFILES.proto, kind, record, keys);
  const get = async (path: string) => {
    const res = await fetch(`${service.url}${path}`);
    return { status: res.status, json: (await res.json()) as Json };
  };
  return {
    service,
    initiator,
    respondent,
    first,
    second,
    third,
    shown,
    sign,
    get,
    file: async (id, fields = {}) => {
      const dispute = withFields(example('dispute_record'), {
        dispute_id: id,
        initiator_agent_id: initiator.agentId,
        respondent_agent_id: respondent.agentId,
        ...fields,
      });
      const filed = await service.post(
        '/v2/dispute/record',
        sign('dispute_record', dispute, initiator.agentKeys),
      );
      expect(filed.status, shown(filed)).toBe(201);
    },
    resolution: (id, text, keys, fields = {}) =>
      sign(
        'arbitration_resolution',
        withFields(example('arbitration_resolution'), {
          dispute_id: id,
          arbitrator_ids: [first.agentId, second.agentId, third.agentId],
          resolution: text,
          timestamp: '2026-06-05T12:00:00Z',
          ...fields,
        }),
        keys,
      ),
    resolve: (record, headers = {}) => service.post('/v2/dispute/arbitration', record, headers),
    disputeOf: async (id) => (await get(`/v2/dispute/record/${id}`)).json,
  };
}

/**
 * A record as a squatter re-posts it (P446): the ML-DSA half dropped (`pq: null`, or no `pq` at all with `pq`
 * undefined) and the (unsigned) binding rewritten.
 */
export function stripped(kind: string, record: Json, pq: null | undefined = null): Json {
  const member = recordSignatureRule(kind)?.signatureMember ?? 'composite_sig';
  const { pq: _dropped, ...rest } = record[member] as Json;
  return {
    ...record,
    [member]: { ...rest, ...(pq === null ? { pq: null } : {}), binding: 'classical_only' },
  };
}
