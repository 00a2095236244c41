// P246 over HTTP against the real verification service: a bundle is one agent's trail under one principal for
// one intent. Signed correctly, a bundle whose passport names agent A while its intent or audit entries name B
// (likewise human_id across RPR, passport binding, intent and entries; intent_id across intent, decision and
// entries) verified, and a reader of the verdict attributed the trail to the wrong agent or human.
import { type BuildHooks, buildSignedBundle } from '@proto/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, startApp } from '../../src/test-support.ts';

type Json = Record<string, unknown>;

let app: RunningApp;
beforeAll(async () => {
  app = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0', VERIFICATION_CACHE_MAX_ENTRIES: '0' });
});
afterAll(() => app?.close());

const OTHER = 'someone-else-001';

type Artifact = 'responsible_principal_record' | 'agent_passport' | 'intent' | 'policy_decision';

/** A hook giving one artifact's `member` another value. */
function payload(artifact: Artifact, member: string): BuildHooks {
  return {
    payloads: (p) => {
      (p[artifact] as Json)[member] = OTHER;
    },
  };
}

/** A hook giving audit entry `index`'s `member` another value. */
function entry(index: number, member: string): BuildHooks {
  return {
    entry: (e, i) => {
      if (i === index) e[member] = OTHER;
    },
  };
}

/** Each mismatch as a builder hook: every signature, hash, chain and root is made over the changed content. */
const CASES: readonly (readonly [string, BuildHooks, string, string])[] = [
  ['intent names another agent', payload('intent', 'agent_id'), 'PROTO-E304', 'agent_id mismatch'],
  ['an audit entry names another agent', entry(1, 'agent_id'), 'PROTO-E304', 'audit_entries[1].agent_id'],
  [
    'the RPR names another human',
    payload('responsible_principal_record', 'human_id'),
    'PROTO-E304',
    'human_id mismatch',
  ],
  [
    "the passport's principal binding names another human",
    payload('agent_passport', 'principal_binding_reference'),
    'PROTO-E304',
    'agent_passport.principal_binding_reference',
  ],
  ['intent names another human', payload('intent', 'human_id'), 'PROTO-E304', 'human_id mismatch'],
  ['an audit entry names another human', entry(0, 'human_id'), 'PROTO-E304', 'audit_entries[0].human_id'],
  [
    'the policy decision is for another intent',
    payload('policy_decision', 'intent_id'),
    'PROTO-E204',
    'policy_decision.intent_id',
  ],
  ['an audit entry is for another intent', entry(2, 'intent_id'), 'PROTO-E204', 'audit_entries[2].intent_id'],
];

describe.each(['2.0', '1.0'] as const)(
  'P246: one agent, one principal, one intent per V%s bundle',
  (version) => {
    it('the builder bundle verifies (the control)', async () => {
      const answer = await postVerify(app.url, {
        signed_bundle: buildSignedBundle({ version, entries: 3 }).signed_bundle,
      });
      expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(true);
    });

    it.each(CASES)('%s: not verified, with the code', async (_name, hooks, code, names) => {
      const signed = buildSignedBundle({ version, entries: 3, hooks }).signed_bundle;
      const answer = await postVerify(app.url, { signed_bundle: signed });
      expect(answer.status).toBe(200);
      expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(false);
      const details = answer.json['error_details'] as { code: string; check: string; message: string }[];
      // The mismatch is the only defect: every other check passes.
      expect(new Set(details.map((d) => d.code)), JSON.stringify(details)).toEqual(new Set([code]));
      expect(details.map((d) => d.message).join('\n')).toContain(names);
      expect(details.map((d) => d.message).join('\n')).toContain(OTHER);
    });
  },
);

describe.each(['2.0', '1.0'] as const)(
  "P281: a V%s passport binds its principal by the RPR's human_id, the only form a passport is documented with",
  (version) => {
    // The upstream passports (V1 agent_passport.json, V2 passport_v2.json, the generated V2 bundles) all write
    // the RPR's human_id; `rpr:<reference>` appears only in a commissioning certificate, naming nothing an RPR holds.
    it.each([
      ['an rpr: reference', (human: string) => `rpr:${human}`],
      ['a DID around the human id', (human: string) => `did:human:${human}`],
    ])('%s is another principal: not verified, E304', async (_name, form) => {
      const signed = buildSignedBundle({
        version,
        entries: 2,
        hooks: {
          payloads: (p) => {
            const human = p.responsible_principal_record['human_id'] as string;
            p.agent_passport['principal_binding_reference'] = form(human);
          },
        },
      }).signed_bundle;
      const answer = await postVerify(app.url, { signed_bundle: signed });
      expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(false);
      const details = answer.json['error_details'] as { code: string; message: string }[];
      expect(details.map((d) => d.code)).toEqual(['PROTO-E304']);
      expect(details[0]?.message).toContain('agent_passport.principal_binding_reference');
    });
  },
);
