// P211 refuses the use of an emergency token registered from a bundle under an agent id of the key id form (before
// P201). That refusal must come only once the secret is proven: answered first, it told anyone without the secret
// that such a token exists for that id (another agent's key id: a kid public in every bundle it signed), since a
// wrong secret against any other token gets the wrong-secret answer. Rows seeded straight into the store as a
// pre-P201 bundle registration wrote them; the real service over HTTP, real SQLite (P243).
import { randomBytes } from 'node:crypto';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EmergencySecret,
  newEmergencySecret,
  type RunningService,
  startService,
  useEmergencySecret,
} from '../../src/test-support.ts';

const JURISDICTION = 'US';
const kidForm = randomBytes(16).toString('hex');
const plain = 'did:web:agent.example:kid-form-control';
const secrets: Record<string, EmergencySecret> = {
  [kidForm]: newEmergencySecret(),
  [plain]: newEmergencySecret(),
};
let target: StoreTarget;
let service: RunningService;

beforeAll(async () => {
  target = await createStoreTarget('sqlite', 'revocation-kid-answer');
  const seeded = await target.open();
  for (const agentId of [kidForm, plain]) {
    const written = await seeded.revocation.registerEmergencyToken(JURISDICTION, {
      agent_id: agentId,
      token: secrets[agentId]?.token ?? '',
      kids: [],
      human_id: 'human-pre-p201',
      source: 'bundle',
    });
    expect(written.status).toBe('created');
  }
  await seeded.close();
  service = await startService({
    store: target.options,
    env: { JURISDICTION, EMERGENCY_MAX_PER_IP: '1000' },
    timer: false,
  });
});
afterAll(async () => {
  await service?.close();
  await target?.cleanup();
});

describe('P243: the kid-form refusal is given only to the holder of the secret', () => {
  it('a wrong secret gets the same answer whether the token is of the key id form or not', async () => {
    const wrong = newEmergencySecret().hex;
    const [againstKidForm, againstPlain] = [
      await useEmergencySecret(service, kidForm, wrong),
      await useEmergencySecret(service, plain, wrong),
    ];
    expect(againstPlain.status).toBe(403);
    // Before P243: the same 403, but the message named the key id form ("…registered from a bundle under an agent
    // id of the key id form…") instead of "The revocation secret does not match the registered token".
    expect(againstKidForm.status).toBe(againstPlain.status);
    expect(againstKidForm.json).toEqual(againstPlain.json);
    expect(JSON.stringify(againstKidForm.json)).not.toContain('key id');
  });

  it('the right secret still revokes nothing under a key-id-form token, and revokes under the other (control)', async () => {
    const refused = await useEmergencySecret(service, kidForm, secrets[kidForm]?.hex ?? '');
    expect(refused.status, JSON.stringify(refused.json)).toBe(403);
    expect(String((refused.json['error'] as { message: string }).message)).toContain('key id form');
    const used = await useEmergencySecret(service, plain, secrets[plain]?.hex ?? '');
    expect(used.status, JSON.stringify(used.json)).toBe(200);
  });
});
