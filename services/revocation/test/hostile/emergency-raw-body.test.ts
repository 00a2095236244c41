// P576, P579: POST /emergency-tokens hands its body's raw bytes to a verification thread, which reads and checks them
// there. Bytes every other route refuses are refused here with the same 400 E001 and the same words (the kit's strict
// readers, run on the thread), schema faults keep Ajv's words, and a CBOR body still registers. Real service over HTTP.
import { encodeCbor } from '@proto/service-kit';
import { sampleBundle } from '@proto/verification/testing';
import { describe, expect, it } from 'vitest';
import { newEmergencySecret } from '../../src/test-support.ts';
import { postAsIs, serviceForDescribe } from './test-helpers.ts';

const JURISDICTION = 'US'; // the builder writes RPRs for US
const JSON_TYPE = { 'content-type': 'application/json' };

interface Refusal {
  readonly status: number;
  readonly code: string | undefined;
  readonly message: string | undefined;
}

describe('P576: the bytes of POST /emergency-tokens are read on the verification thread', () => {
  const service = serviceForDescribe({ JURISDICTION, EMERGENCY_REGISTRATION: 'bundle' });

  async function send(body: Buffer, headers: Record<string, string> = JSON_TYPE): Promise<Refusal> {
    const answer = await postAsIs(`${service().url}/emergency-tokens`, body, headers);
    const error = (JSON.parse(answer.text) as { error?: { code: string; message: string } }).error;
    return { status: answer.status, code: error?.code, message: error?.message };
  }
  const refused = (message: string | RegExp) => ({
    status: 400,
    code: 'PROTO-E001',
    message: typeof message === 'string' ? message : expect.stringMatching(message),
  });

  it.each([
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), refused('Request body is not valid UTF-8')],
    ['text that is not JSON', Buffer.from('{"signed_bundle":'), refused('Request body is not valid JSON')],
    ['an empty body', Buffer.alloc(0), refused('Request body is not valid JSON')],
    [
      'a member named twice',
      Buffer.from('{"signed_bundle":{},"signed_bundle":{}}'),
      refused(/^Request body has no canonical form: .*signed_bundle/),
    ],
    [
      'a prototype member',
      Buffer.from('{"signed_bundle":{"__proto__":{"x":1}}}'),
      refused(/^Request body is invalid: .*__proto__/),
    ],
    ['an array', Buffer.from('[]'), refused('Request body is invalid: body must be object')],
    [
      'no signed_bundle',
      Buffer.from('{}'),
      refused("Request body is invalid: body must have required property 'signed_bundle'"),
    ],
    [
      'a signed_bundle that is no object',
      Buffer.from('{"signed_bundle":"x"}'),
      refused('Request body is invalid: body/signed_bundle must be object'),
    ],
  ])('%s: 400 E001 in the words of every other route', async (_what, body, expected) => {
    expect(await send(body)).toEqual(expected);
  });

  it('bad CBOR: 400 E001; a CBOR registration: 201', async () => {
    expect(await send(Buffer.from([0xa1, 0x61]), { 'content-type': 'application/cbor' })).toEqual(
      refused(/^Request body is not valid CBOR: /),
    );
    const built = sampleBundle({ emergencyRevocationToken: newEmergencySecret().token });
    const answer = await postAsIs(
      `${service().url}/emergency-tokens`,
      Buffer.from(encodeCbor({ signed_bundle: built.signed_bundle })),
      { 'content-type': 'application/cbor' },
    );
    expect(answer.status, answer.text).toBe(201);
    expect((JSON.parse(answer.text) as { agent_id: string }).agent_id).toBe(built.agentId);
  });
});
