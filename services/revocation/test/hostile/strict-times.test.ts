// The revocation service reads a time as a PROTOCOL date-time and nothing else (core's reader, P221/P222), where
// instantOf alone fell back to Date.parse's guesses: ATTESTATION_KEY_VALID_FROM, which the service publishes as the
// current attestation key's valid_from, and POST /revocations' revoked_at, which it publishes in the signed list.
// A configured value that is not a date-time stops the real process at boot, naming the variable; a revoked_at
// whose instant no four-digit year can write is a 400 (P244).
import { fileURLToPath } from 'node:url';
import { ConfigError } from '@proto/service-kit';
import { runProcess } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRevocationConfig, REVOCATION_ENV } from '../../src/config.ts';
import {
  call,
  currentList,
  ISSUER,
  JURISDICTION,
  type RunningService,
  startService,
  TOKEN,
  tempDir,
} from '../../src/test-support.ts';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
/** Read by Date.parse as 2001-01-01, 2026-01-01, a local time and a bare date: none is a date-time. */
const NOT_DATE_TIMES = ['1', '2026', 'March 7, 2026 10:00', '2026-03-07', '2026-03-07T10:00:00'];

function configError(env: Record<string, string>): ConfigError | undefined {
  try {
    loadRevocationConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  return undefined;
}

describe('P244: ATTESTATION_KEY_VALID_FROM is a date-time or the service does not start', () => {
  const dir = tempDir('strict-valid-from');
  const env = {
    DATA_DIR: dir.dir,
    OPERATOR_TOKEN: TOKEN,
    ISSUER,
    JURISDICTION,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
  };
  afterAll(() => dir.remove());

  it('the loader refuses every string that is not a date-time, naming the variable', () => {
    for (const value of NOT_DATE_TIMES) {
      const error = configError({ ...env, ATTESTATION_KEY_VALID_FROM: value });
      // Before P244: no error; '1' was published as 2001-01-01T00:00:00.000Z.
      expect(error, value).toBeInstanceOf(ConfigError);
      expect(error?.variables).toEqual(['ATTESTATION_KEY_VALID_FROM']);
    }
    // Controls: the date-time forms the schemas accept load, a leap second as the next midnight (P178).
    for (const [value, read] of [
      ['2026-03-07T10:00:00Z', '2026-03-07T10:00:00.000Z'],
      ['2026-03-07 10:00:00+01', '2026-03-07T09:00:00.000Z'],
      ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'],
    ] as const) {
      expect(
        loadRevocationConfig({ ...env, ATTESTATION_KEY_VALID_FROM: value }).ATTESTATION_KEY_VALID_FROM,
      ).toBe(read);
    }
  });

  it('the real process exits 1 at boot and says why', async () => {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !(name in REVOCATION_ENV) && name !== 'TEST_DATABASE_URL',
      ),
    );
    const run = await runProcess(process.execPath, [MAIN], {
      env: { ...inherited, ...env, ATTESTATION_KEY_VALID_FROM: '1' },
      // Before P244 the service started and listened: killed here (code null).
      killAfterMs: 20_000,
    });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toContain('ATTESTATION_KEY_VALID_FROM');
    expect(run.stderr).toMatch(/date-time/);
  }, 30_000);
});

describe('P244: revoked_at names an instant an RFC 3339 date-time can write', () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startService({ timer: false });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('is refused with a 400 when its instant lies before year 0000 in UTC, and the list is unchanged', async () => {
    const before = await currentList(service);
    for (const revokedAt of ['0000-01-01T00:00:00+01:00', '0000-01-01 00:30:00+0100']) {
      const res = await call(service, 'POST', '/revocations', {
        agent_id: 'did:web:agent.example:year-minus-one',
        reason: 'key compromise',
        revoked_at: revokedAt,
      });
      // Before P244: read as -000001-12-31T23:00:00.000Z, which the list's own schema refuses when signing: 500.
      expect(res.status, JSON.stringify(res.json)).toBe(400);
      expect((res.json['error'] as { code: string }).code).toMatch(/^PROTO-E\d{3}$/);
    }
    expect((await currentList(service)).list_number).toBe(before.list_number);
  });

  it('takes every date-time form the schema accepts and publishes it as UTC (control)', async () => {
    for (const [revokedAt, published] of [
      ['0000-01-01T00:00:00Z', '0000-01-01T00:00:00.000Z'],
      ['2026-03-01 10:00:00+05', '2026-03-01T05:00:00.000Z'],
      ['2016-12-31T23:59:60Z', '2016-12-31T23:59:59.999Z'],
    ] as const) {
      const agent = `did:web:agent.example:${published.slice(0, 4)}-${published.slice(11, 13)}`;
      const res = await call(service, 'POST', '/revocations', {
        agent_id: agent,
        reason: 'key compromise',
        revoked_at: revokedAt,
      });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      expect(res.json['revoked_at']).toBe(published);
      const listed = ((await currentList(service))['entries'] as Array<Record<string, string>>).find(
        (e) => e['agent_id'] === agent,
      );
      expect(listed?.['revoked_at']).toBe(published);
    }
  });
});
