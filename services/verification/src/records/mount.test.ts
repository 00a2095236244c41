// The /v2 records as main.ts mounts them: their variables are part of the service's validated configuration and
// nothing of them is read from process.env on the side. Issue 13 item 4; D17 (limits), docs/architecture.md §4.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@proto/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadVerificationConfig } from '../config.ts';
import { startApp } from '../test-support.ts';
import { mountRecords } from './index.ts';
import { example } from './test-support.ts';

describe('records mounted from the validated configuration', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'proto-records-mount-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('validates STORE_MAX_ENTRIES and V2_RATE_LIMIT_PER_MINUTE at boot with the rest of the service', () => {
    const defaults = loadVerificationConfig({});
    expect(defaults.STORE_MAX_ENTRIES).toBe(10_000);
    expect(defaults.V2_RATE_LIMIT_PER_MINUTE).toBe(100);
    for (const [name, value] of [
      ['STORE_MAX_ENTRIES', '0'],
      ['STORE_MAX_ENTRIES', 'many'],
      ['V2_RATE_LIMIT_PER_MINUTE', '-1'],
    ] as const) {
      let refusal: unknown;
      try {
        loadVerificationConfig({ [name]: value });
      } catch (error) {
        refusal = error;
      }
      expect(refusal, `${name}=${value}`).toBeInstanceOf(ConfigError);
      expect((refusal as ConfigError).message).toContain(name);
    }
  });

  it('serves /v2 with the configured limit and ignores stray process.env values', async () => {
    const stray = process.env['V2_RATE_LIMIT_PER_MINUTE'];
    process.env['V2_RATE_LIMIT_PER_MINUTE'] = 'not-a-number';
    const config = loadVerificationConfig({
      DATA_DIR: dataDir,
      V2_RATE_LIMIT_PER_MINUTE: '1',
      RECORDS_WRITE_POLICY: 'open', // unsigned example records: this test is about the limit
    });
    let mounted: Awaited<ReturnType<typeof mountRecords>>;
    try {
      mounted = await mountRecords(config);
    } finally {
      if (stray === undefined) delete process.env['V2_RATE_LIMIT_PER_MINUTE'];
      else process.env['V2_RATE_LIMIT_PER_MINUTE'] = stray;
    }
    const running = await startApp({ VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0' }, [mounted]);
    try {
      const post = () =>
        fetch(`${running.url}/v2/dispute/record`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(example('dispute_record')),
        });
      expect((await post()).status).toBe(201);
      const limited = await post();
      expect(limited.status).toBe(429);
      expect(((await limited.json()) as { error: { code: string } }).error.code).toMatch(/^PROTO-E/);
    } finally {
      await running.close();
    }
  });
});
