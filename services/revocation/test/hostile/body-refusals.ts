// What the tests of write bodies the service must refuse (P259 types, P270 members) share: the real service started
// for the file, the refusal they expect, and an agent registered for emergency revocation to aim a body at.
import { afterAll, beforeAll, expect } from 'vitest';
import {
  type Answer,
  call,
  emergencyRevocationRecord,
  newEmergencySecret,
  type RunningService,
  startService,
} from '../../src/test-support.ts';

/** The service (no revocation timer), started before the calling file's tests and closed after them. */
export function serviceForFile(): () => RunningService {
  let service: RunningService | undefined;
  beforeAll(async () => {
    service = await startService({ timer: false });
  });
  afterAll(() => service?.close());
  return () => {
    if (service === undefined) throw new Error('the revocation service did not start');
    return service;
  };
}

/** A 400 PROTO-E001 whose message contains `named` (the member refused). */
export function expectRefusalNaming(answer: Answer, named: string): void {
  expect(answer.status).toBe(400);
  const error = answer.json['error'] as { code: string; message: string };
  expect(error.code).toBe('PROTO-E001');
  expect(error.message).toContain(named);
}

/** `agent` registered for emergency revocation with a fresh secret (201), and the record its holder would send. */
export async function registeredForEmergency(service: RunningService, agent: string) {
  const secret = newEmergencySecret();
  expect(
    (await call(service, 'PUT', `/emergency-tokens/${agent}`, { emergency_revocation_token: secret.token }))
      .status,
  ).toBe(201);
  return { secret, record: emergencyRevocationRecord(agent, secret.hex) };
}
