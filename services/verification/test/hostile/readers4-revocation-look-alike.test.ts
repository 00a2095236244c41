// Brief "readers4" items 1 and 2: a revocation list read by POST /verify (JSON and CBOR), POST /verify/batch and
// `proto verify --revocation-list` (the real revocation service as the list's source, the real CLI spawned).
// - P516: a list revoking a look-alike of the bundle's agent (`agent-…0…` revoked as `agent-…O…`) passed the bundle in
//   every reader, rightly (D20: a list revokes the ids it names), but only `proto revocation verify --agent` (P456)
//   said that a person reading the list would take this agent for revoked. Now every reader says it, in core's words.
// - P517: a bundle that names no agent id: the service listed no revocation check at all, the CLI `skipped` it.
// - P572 (brief "ids2" item 3): signers' kids are looked up too (a list entry naming a kid revokes it), but an entry
//   reading as a signer's kid (`O` for one of its `0`s) was named by no reader.
import { revoke } from '@proto/revocation/testing';
import { encodeCbor } from '@proto/service-kit';
import { describe, expect, it } from 'vitest';
import { sampleBundle } from '../../src/test-support.ts';
import { revocationListSuite } from './testing/revocation-list-verifier.ts';

const fixture = revocationListSuite('readers4-revocation');

type Answer = {
  verified: boolean;
  checks: Record<string, string>;
  warnings?: string[];
  error_details?: { code: string; check: string; message: string }[];
};
/** The answers of every reader to one request. */
async function readers(request: object): Promise<Record<string, Answer>> {
  const text = JSON.stringify(request);
  const post = async (where: string, body: string | Uint8Array, type: string) =>
    fetch(`${fixture.verifier.url}${where}`, { method: 'POST', headers: { 'content-type': type }, body });
  const json = (await (await post('/verify', text, 'application/json')).json()) as Answer;
  // The service must ask the list again for each reader: the list changes between tests.
  const cbor = (await (await post('/verify', encodeCbor(request), 'application/cbor')).json()) as Answer;
  const batch = JSON.parse(
    (await (await post('/verify/batch', `${text}\n`, 'application/x-ndjson')).text()).trim(),
  );
  const { answer: local } = await fixture.cliVerify(request);
  return {
    'POST /verify': json,
    'POST /verify (CBOR)': cbor,
    'POST /verify/batch': batch as Answer,
    'proto verify --revocation-list': local as Answer,
  };
}
const gist = (a: Answer) => ({
  verified: a.verified,
  revocation: a.checks?.['revocation'],
  warnings: (a.warnings ?? []).filter((w) => /revocation|look-alike|revoked/.test(w)),
});

/** A bundle whose agent id holds a `0` or a `1` (its id is `agent-` and 16 hex of a fresh key). */
function bundleWithConfusableAgent() {
  for (;;) {
    const sample = sampleBundle({ tier: 'routine' });
    if (/[01]/.test(sample.agentId as string)) return sample;
  }
}
/** `id` with its first `0` written `O`, or its first `1` written `l`: another id that reads the same. */
const lookAlikeOf = (id: string) => (/0/.test(id) ? id.replace('0', 'O') : id.replace('1', 'l'));

describe('P516: a list revoking a look-alike of the agent is named by every reader', () => {
  it('control: a list naming other agents only: no look-alike warning anywhere', async () => {
    expect((await revoke(fixture.us, 'agent-unrelated-zz')).status).toBe(201);
    const sample = bundleWithConfusableAgent();
    const all = await readers({ signed_bundle: sample.signed_bundle });
    for (const [reader, answer] of Object.entries(all))
      expect(gist(answer), reader).toEqual({ verified: true, revocation: 'pass', warnings: [] });
  });

  it('the list revokes `agent-…O…`, the bundle is `agent-…0…`: verified, with one warning in one wording', async () => {
    const sample = bundleWithConfusableAgent();
    const agent = sample.agentId as string;
    const twin = lookAlikeOf(agent);
    expect((await revoke(fixture.us, twin)).status).toBe(201);
    const all = await readers({ signed_bundle: sample.signed_bundle });
    const served = gist(all['POST /verify'] as Answer);
    expect(served.verified, JSON.stringify(all['POST /verify'])).toBe(true);
    expect(served.revocation).toBe('pass');
    expect(served.warnings).toHaveLength(1);
    expect(served.warnings[0]).toMatch(
      new RegExp(
        `^US: agent ${agent} is not in the list, but entries\\[\\d+\\]\\.agent_id "${twin}" reads the same: check which agent the issuer meant \\(look-alike id\\)$`,
      ),
    );
    for (const [reader, answer] of Object.entries(all)) expect(gist(answer), reader).toEqual(served);
  });
});

describe("P572: a list revoking a look-alike of a signer's kid is named by every reader", () => {
  it("the list revokes the agent key's kid with `O` for a `0`: verified, with one warning in one wording", async () => {
    let sample = sampleBundle({ tier: 'routine' });
    while (!/0/.test(sample.agentKid)) sample = sampleBundle({ tier: 'routine' });
    const twin = sample.agentKid.replace('0', 'O');
    expect((await revoke(fixture.us, twin)).status).toBe(201);
    const all = await readers({ signed_bundle: sample.signed_bundle });
    const served = gist(all['POST /verify'] as Answer);
    expect(served).toEqual({
      verified: true,
      revocation: 'pass',
      warnings: [
        expect.stringMatching(
          new RegExp(
            `^US: signer kid ${sample.agentKid} is not in the list, but entries\\[\\d+\\]\\.agent_id "${twin}" reads the same: check which key the issuer meant \\(look-alike id\\)$`,
          ),
        ),
      ],
    });
    for (const [reader, answer] of Object.entries(all)) expect(gist(answer), reader).toEqual(served);
  });
});

describe('P517: a bundle that names no agent id gets one revocation answer', () => {
  it('no agent_id in the passport: not verified (E002), and `revocation` is skipped, unchecked, in every reader', async () => {
    const sample = sampleBundle({ tier: 'routine' });
    const signed = JSON.parse(JSON.stringify(sample.signed_bundle)) as {
      bundle: { agent_passport: { payload: Record<string, unknown> } };
    };
    delete signed.bundle.agent_passport.payload['agent_id'];
    const all = await readers({ signed_bundle: signed });
    const served = all['POST /verify'] as Answer;
    expect(served.verified).toBe(false);
    expect(served.error_details?.map((d) => d.code)).toContain('PROTO-E002');
    expect(gist(served)).toEqual({
      verified: false,
      revocation: 'skipped',
      warnings: ['revocation not checked: the bundle is not verified, so no external look-up is made'],
    });
    for (const [reader, answer] of Object.entries(all)) expect(gist(answer), reader).toEqual(gist(served));
  });
});
