// P518 (brief "readers4" item 4): what a /v2 id outside SPEC.md's pattern is answered. The record's own id, an
// `arbitrator_ids` entry and a transition's agent_id answered `INVALID_ID`, a code outside the PROTO-E registry, while
// every other id of a record (the ones its schema patterns: human_id, initiator_agent_id, …) answered PROTO-E002: one
// fault, two codes, chosen by which member held it. An id in a record is part of the artifact, so it is now E002
// ("artifact does not conform to schema", D13) everywhere, with `details.reason: "INVALID_ID"` kept for clients that
// read the old code, and `details.field` / `details.pattern` as before; P563 puts those in E002's documented
// `details` list, one `{path, message, reason, field, pattern}` issue. An id in the URL (path, `?version=`) is no
// artifact: it stays `INVALID_ID`, as the router and every service built on service-kit answer a path parameter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import { startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
let service: VerifierWithRecords;
beforeAll(async () => {
  service = await startVerifierWithRecords('sqlite', 'readers4-record-id-codes', {
    OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
  });
}, 60_000);
afterAll(async () => {
  await service?.close();
});

const ID_RULE = '^[\\w:.\\-]{1,256}$';

describe('P518: an id in a /v2 record outside the id pattern is PROTO-E002, the old code kept as details.reason', () => {
  it.each([
    [
      'a dispute record whose own id holds a space',
      '/v2/dispute/record',
      withFields(example('dispute_record'), { dispute_id: 'dispute x-0001' }),
      'dispute_id',
      '/dispute_id',
    ],
    [
      'the same, in the wrapped form',
      '/v2/dispute/record',
      { dispute_record: withFields(example('dispute_record'), { dispute_id: 'dispute x-0001' }) },
      'dispute_id',
      '/dispute_record/dispute_id',
    ],
    [
      'an arbitrator id with a NUL',
      '/v2/dispute/arbitration',
      withFields(example('arbitration_resolution'), {
        dispute_id: 'dispute-readers4-0001',
        arbitrator_ids: ['agent:arbiter\u0000'],
      }),
      '/arbitrator_ids/0',
      '/arbitrator_ids/0',
    ],
    [
      'a transition whose agent id holds a space',
      '/v2/lifecycle/transition',
      { agent_id: 'agent x', to_state: 'active' },
      'agent_id',
      '/agent_id',
    ],
  ] as const)('%s: 400 PROTO-E002', async (_what, path, body, field, pointer) => {
    const answer = await service.post(path, body, OPERATOR);
    expect(answer.status, JSON.stringify(answer.json)).toBe(400);
    // P563: E002's `details` is its documented list of `{path, message}` issues (as a schema failure answers), the
    // one issue keeping P518's reason, field and pattern. Before: an object, `{reason, field, pattern}`.
    expect(answer.json).toMatchObject({
      error: {
        code: 'PROTO-E002',
        retryable: false,
        details: [{ path: pointer, reason: 'INVALID_ID', field, pattern: ID_RULE }],
      },
    });
    const [issue] = (answer.json['error'] as { details: { message: unknown }[] }).details;
    expect(typeof issue?.message).toBe('string');
  });

  it('P563: the id issue reads as a schema issue does (one `details` form for PROTO-E002)', async () => {
    const badId = await service.post(
      '/v2/dispute/record',
      withFields(example('dispute_record'), { dispute_id: 'dispute x-0002' }),
      OPERATOR,
    );
    const badSchema = await service.post(
      '/v2/dispute/record',
      withFields(example('dispute_record'), { initiator_agent_id: 'agent x-0002' }),
      OPERATOR,
    );
    const shape = (json: Json) =>
      (json['error'] as { details: Json[] }).details.map((issue) => [
        typeof issue['path'],
        typeof issue['message'],
      ]);
    expect(shape(badId.json)).toEqual([['string', 'string']]);
    expect(shape(badId.json)).toEqual(shape(badSchema.json).slice(0, 1));
  });

  it('an id the schema patterns (the initiator of a dispute) was E002 already: one code for one fault', async () => {
    const record = withFields(example('dispute_record'), { initiator_agent_id: 'agent x-0001' });
    const answer = await service.post('/v2/dispute/record', record, OPERATOR);
    expect(answer.status).toBe(400);
    expect((answer.json['error'] as { code: string }).code).toBe('PROTO-E002');
  });

  it('control: an id in the URL is no artifact and stays INVALID_ID', async () => {
    const res = await fetch(`${service.url}/v2/dispute/record/${encodeURIComponent('dispute x')}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'INVALID_ID' } });
  });
});
