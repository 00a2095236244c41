// P515: the real `proto` CLI signs a human's HumanConfirmationV2 consent with the principal keys of its `proto build`
// key file; it is nested in a succession record the CLI signs with the agent keys, and the real service, which has
// verified the CLI-built bundle (binding both key sets), stores it as a verified consented succession.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dialectsUnderTest } from '@proto/store/testing';
import { runProcess, tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, withFields } from '../../src/records/test-support.ts';
import { startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const CLI = fileURLToPath(new URL('../../../../packages/cli/src/main.ts', import.meta.url));
const cli = (args: readonly string[]) => runProcess(process.execPath, [CLI, ...args], { input: '' });
const work = tempDirSync('p515-cli-consent');
const file = (name: string) => path.join(work.dir, name);
afterAll(() => work.remove());

// One dialect is enough: the store does nothing here the consent tests do not already cover on both.
describe.each(dialectsUnderTest().slice(0, 1))('a consent signed by the proto CLI, on %s', (dialect) => {
  let service: VerifierWithRecords;
  let bundle: Json;

  beforeAll(async () => {
    const built = await cli(['build', '--keys-out', file('keys.json')]);
    expect(built.code, built.stderr).toBe(0);
    bundle = JSON.parse(built.stdout) as Json;
    service = await startVerifierWithRecords(dialect, 'p515-cli', {});
    const verified = await service.post('/verify', { signed_bundle: bundle });
    expect(verified.json['verified'], JSON.stringify(verified.json).slice(0, 300)).toBe(true);
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  /** The CLI-built bundle's agent and human ids. */
  const idsOf = () => {
    const payloads = bundle['bundle'] as Record<string, { payload: Json }>;
    return {
      agentId: payloads['agent_passport']!.payload['agent_id'] as string,
      humanId: payloads['responsible_principal_record']!.payload['human_id'] as string,
    };
  };
  /** `proto record sign human_confirmation` of the human's consent to the ceremony `nonce`. */
  const signConsent = (humanId: string, nonce: string, name: string) => {
    const { composite_sig: _unsigned, ...consent } = withFields(
      example('succession_record')['human_consent'] as Json,
      { human_id: humanId, session_nonce: nonce },
    );
    writeFileSync(file(name), JSON.stringify(consent));
    return cli(['record', 'sign', 'human_confirmation', file(name), '--keys', file('keys.json')]);
  };
  /** The agent's succession record of the ceremony `nonce`, its human listed, `fields` over the example's. */
  const successionOf = (nonce: string, successor: string, fields: Json) => {
    const { agentId, humanId } = idsOf();
    return withFields(example('succession_record'), {
      predecessor_agent_id: agentId,
      successor_agent_id: successor,
      session_nonce: nonce,
      ceremony_participants: [agentId, successor, humanId],
      ...fields,
    });
  };

  it('P515: `proto record sign human_confirmation` signs the consent a succession record nests', async () => {
    const { humanId } = idsOf();
    const keys = JSON.parse(readFileSync(file('keys.json'), 'utf8')) as { agent: Json };
    expect(keys.agent).toBeDefined();
    const nonce = '5'.repeat(64);
    // before: exit 2, "unknown record kind 'human_confirmation'".
    const signedConsent = await signConsent(humanId, nonce, 'consent.json');
    expect(signedConsent.code, signedConsent.stderr).toBe(0);
    const record = successionOf(nonce, 'agent:p515-successor', {
      human_consent: JSON.parse(signedConsent.stdout) as Json,
    });
    writeFileSync(file('succession.json'), JSON.stringify(record));
    const signed = await cli([
      'record',
      'sign',
      'succession_record',
      file('succession.json'),
      '--keys',
      file('keys.json'),
    ]);
    expect(signed.code, signed.stderr).toBe(0);

    const stored = await service.post('/v2/succession/record', JSON.parse(signed.stdout));
    expect(stored.status, JSON.stringify(stored.json).slice(0, 400)).toBe(201);
    expect(stored.json['signature']).toMatchObject({ status: 'verified' });

    // The CLI checks the consent as the service does: the human's (principal) keys, the HumanConfirmation context.
    writeFileSync(file('signed-consent.json'), signedConsent.stdout);
    const checked = await cli([
      'record',
      'verify',
      'human_confirmation',
      file('signed-consent.json'),
      '--keys',
      file('keys.json'),
    ]);
    expect(checked.code, checked.stdout).toBe(0);
    expect(JSON.parse(checked.stdout)).toMatchObject({ valid: true, subjects: [humanId] });
  });

  it('P564: `proto record sign succession_record --consent FILE` nests the signed consent, no jq needed', async () => {
    const { humanId } = idsOf();
    const nonce = '6'.repeat(64);
    const signedConsent = await signConsent(humanId, nonce, 'consent-6.json');
    expect(signedConsent.code, signedConsent.stderr).toBe(0);
    writeFileSync(file('signed-consent-6.json'), signedConsent.stdout);
    const { human_consent: _none, ...bare } = successionOf(nonce, 'agent:p564-successor', {});
    writeFileSync(file('succession-6.json'), JSON.stringify(bare));
    const sign = (kind: string, source: string) =>
      cli([
        'record',
        'sign',
        kind,
        source,
        '--keys',
        file('keys.json'),
        '--consent',
        file('signed-consent-6.json'),
      ]);
    // before: exit 2, the option unknown.
    const signed = await sign('succession_record', file('succession-6.json'));
    expect(signed.code, signed.stderr).toBe(0);
    const record = JSON.parse(signed.stdout) as Json;
    expect(record['human_consent']).toEqual(JSON.parse(signedConsent.stdout));
    const stored = await service.post('/v2/succession/record', record);
    expect(stored.status, JSON.stringify(stored.json).slice(0, 400)).toBe(201);
    expect(stored.json['signature']).toMatchObject({ status: 'verified' });
    // Another kind has no consent to nest: a usage error, nothing printed.
    const misused = await sign('vitality_report', file('succession-6.json'));
    expect(misused.code).toBe(2);
    expect(misused.stderr).toContain(
      '--consent FILE nests a signed human_confirmation in a succession_record only',
    );
    expect(misused.stdout).toBe('');
  });
});
