// P612: a verification thread had no heap cap. Its heap is V8's default (a share of the host's memory), and a heap
// exhausted in a thread ended the whole process: every caller's connection, not one request. Now each thread runs
// under VERIFY_THREAD_HEAP_MB: past it the thread alone is ended, its request is answered 500 PROTO-E900, the next
// one verifies on a new thread, and proto_verify_pool_threads_out_of_memory_total counts it. The real main.ts, with
// a small cap so a body within /verify's 1 MiB limit passes it (the default's margin is measured in P612).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@proto/service-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { loadVerificationConfig } from '../../src/config.ts';
import {
  metricValue,
  postVerify,
  type SpawnedService,
  sampleBundle,
  spawnService,
} from '../../src/test-support.ts';

const children: SpawnedService[] = [];
afterAll(() => {
  for (const child of children) child.child.kill('SIGKILL');
});

/** Just under /verify's 1 MiB limit: 349,000 empty arrays, which the thread parses into as many objects. */
const MANY_ARRAYS = `{"signed_bundle":[${Array(349_000).fill('[]').join(',')}]}`;

describe('P612: a verification thread past its heap cap ends alone', () => {
  it('500 PROTO-E900 for that request, the process lives, the next verifies, the metric counts it', async () => {
    const service = spawnService({
      LOG_LEVEL: 'info',
      PORT: '0',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'creds3-heap-')),
      VERIFY_WORKERS: '1',
      VERIFY_THREAD_HEAP_MB: '16',
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      VERIFICATION_CACHE_MAX_ENTRIES: '0',
    });
    children.push(service);
    const url = await service.listening(80_000);
    expect(MANY_ARRAYS.length).toBeLessThan(1_048_576);

    const heavy = await postVerify(url, MANY_ARRAYS);
    expect(heavy.status, JSON.stringify(heavy.json)).toBe(500);
    expect(heavy.json).toMatchObject({ error: { code: 'PROTO-E900' } });
    expect(JSON.stringify(heavy.json)).not.toMatch(/heap|memory|at .*\.ts/i);
    expect(service.child.exitCode).toBeNull();

    const genuine = sampleBundle({});
    const next = await postVerify(url, { signed_bundle: genuine.signed_bundle });
    expect(next.status).toBe(200);
    expect(next.json['verified']).toBe(true);
    expect(await metricValue(url, 'proto_verify_pool_threads_out_of_memory_total')).toBe(1);
    expect(service.child.exitCode).toBeNull();
  }, 120_000);

  it('VERIFY_THREAD_HEAP_MB is bounded (16..16384 MB): a value outside is a ConfigError naming it', () => {
    for (const value of ['8', '16385', 'lots']) {
      let thrown: unknown;
      try {
        loadVerificationConfig({ VERIFY_THREAD_HEAP_MB: value });
      } catch (error) {
        thrown = error;
      }
      expect(thrown, value).toBeInstanceOf(ConfigError);
      expect((thrown as ConfigError).variables).toEqual(['VERIFY_THREAD_HEAP_MB']);
    }
  });
});
