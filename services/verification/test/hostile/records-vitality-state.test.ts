// A live agent's vitality report states what the lifecycle machine holds (P447), over HTTP against the real verification
// service with the /v2 records mounted, on every store dialect. A report's `state` is stored, not applied (moves go
// through /v2/lifecycle/transition), and GET /v2/lifecycle/vitality/<agent> answers the latest report: a report
// stating a state the agent has not entered was answered as the agent's latest vitality.
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import {
  commissionOwnAgent,
  partyOf,
  startVerifierWithRecords,
  type VerifierWithRecords,
} from './verifier-with-records.ts';

const backend = createNativeBackend();
const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };

describe.each(dialectsUnderTest())(
  "vitality reports judged by the agent's lifecycle state, on %s",
  (dialect) => {
    let service: VerifierWithRecords;
    const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 500);

    beforeAll(async () => {
      service = await startVerifierWithRecords(dialect, 'v2-vitality-state', {
        OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      });
    }, 180_000);
    afterAll(async () => {
      await service?.close();
    });

    /** An agent of its own verified bundle, commissioned here; its reports chained and dated after each other. */
    async function reportingAgent() {
      const agent = partyOf(buildSignedBundle());
      const own = await commissionOwnAgent(service, agent);
      const start = Date.now() + 1000;
      let step = 0;
      const at = () => new Date(start + 1000 * ++step).toISOString();
      let prev = 'GENESIS';
      const report = (state: string, headers: Record<string, string> = {}) =>
        service.post(
          '/v2/lifecycle/vitality',
          signRecord(
            backend,
            PROFILES.proto,
            'vitality_report',
            withFields(example('vitality_report'), {
              agent_id: agent.agentId,
              timestamp: at(),
              state,
              prev_report_hash: prev,
            }),
            agent.agentKeys,
          ),
          headers,
        );
      return {
        agent,
        /** Posts a report stating `state`; a stored one becomes the link the next report names. */
        report: async (state: string, headers: Record<string, string> = {}) => {
          const answer = await report(state, headers);
          if (answer.status === 201) prev = String(answer.json['report_hash']);
          return answer;
        },
        move: async (to: string) => {
          const moved = await own.move({ agent_id: agent.agentId, to_state: to, timestamp: at() });
          expect(moved.status, shown(moved)).toBe(200);
        },
        latest: async () =>
          (await (await fetch(`${service.url}/v2/lifecycle/vitality/${agent.agentId}`)).json()) as Json,
      };
    }

    const refusedAs = (answer: { status: number; json: Json }, current: string, reported: string) => {
      expect(answer.status, shown(answer)).toBe(409);
      expect(answer.json, shown(answer)).toMatchObject({
        error: { code: 'CONFLICT', details: { current_state: current, reported_state: reported } },
      });
    };

    it('P447: an agent commissioned but never activated reports no active, declining or decommissioned agent', async () => {
      const reporter = await reportingAgent();
      const active = await reporter.report('active');
      // Before P447: 201, and GET /v2/lifecycle/vitality/<agent> answered an `active` agent the lifecycle never moved.
      refusedAs(active, 'commissioned', 'active');
      expect(active.json).toMatchObject({ error: { details: { allowed_states: ['commissioned'] } } });
      refusedAs(await reporter.report('declining'), 'commissioned', 'declining');
      // commissioned → decommissioned is no move of SPEC's machine (D16), so no final report either.
      refusedAs(await reporter.report('decommissioned'), 'commissioned', 'decommissioned');
      // Nothing was stored nor chained: the first report stating what the agent is, is GENESIS's successor.
      expect((await fetch(`${service.url}/v2/lifecycle/vitality/${reporter.agent.agentId}`)).status).toBe(
        404,
      );
      const truthful = await reporter.report('commissioned');
      expect(truthful.status, shown(truthful)).toBe(201);
      // The operator's token writes a record without a signature check, not a history the machine refuses (as P379).
      refusedAs(await reporter.report('active', OPERATOR), 'commissioned', 'active');
      expect((await reporter.latest())['record']).toMatchObject({ state: 'commissioned' });
    });

    it('P447: an active agent reports active, or decommissioned as its final report; not declining before it moves', async () => {
      const reporter = await reportingAgent();
      await reporter.move('active');
      refusedAs(await reporter.report('commissioned'), 'active', 'commissioned');
      const declining = await reporter.report('declining');
      refusedAs(declining, 'active', 'declining');
      expect(declining.json).toMatchObject({
        error: { details: { allowed_states: ['active', 'decommissioned'] } },
      });
      expect((await reporter.report('active')).status).toBe(201);
      // Moved first, the same report is taken.
      await reporter.move('declining');
      const nowDeclining = await reporter.report('declining');
      expect(nowDeclining.status, shown(nowDeclining)).toBe(201);
      // SPEC's machine has no declining → active (D16): a declining agent reports no recovery.
      refusedAs(await reporter.report('active'), 'declining', 'active');
      expect((await reporter.latest())['record']).toMatchObject({ state: 'declining' });
      // Its final report may come before its decommissioning record (which is itself the move).
      const final = await reporter.report('decommissioned');
      expect(final.status, shown(final)).toBe(201);
    });
  },
);
