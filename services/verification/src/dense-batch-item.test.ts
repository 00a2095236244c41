// A batch item as large as VERIFY_BATCH_MAX_BYTES allows, made of the densest JSON (millions of empty objects or
// arrays, ~19 bytes of heap a byte), is refused as what it is and ends neither a verification thread nor the
// process. A cap on the threads' old generation (P140, withdrawn) failed this: V8 ended the thread, and while
// Node disposed of its isolate the process aborted ("Reached heap limit"), so one request stopped the service.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { metricValue, type SpawnedService, spawnService } from './test-support.ts';

const BATCH_MAX_BYTES = 8 * 1048576;
let started: SpawnedService | undefined;

afterEach(async () => {
  if (started !== undefined && started.child.exitCode === null) {
    started.child.kill('SIGTERM');
    await started.exit;
  }
  started = undefined;
});

/** One NDJSON item just under the batch's byte limit: `{"signed_bundle":{"bundle":[unit,unit,…]}}`. */
function denseItem(unit: string): string {
  const head = '{"signed_bundle":{"bundle":[';
  const tail = ']}}\n';
  const count = Math.floor((BATCH_MAX_BYTES - head.length - tail.length) / (unit.length + 1));
  return `${head}${Array.from({ length: count }, () => unit).join(',')}${tail}`;
}

describe('POST /verify/batch with a dense item as large as a batch may be', () => {
  it('answers each as a schema refusal and keeps its thread and the process', async () => {
    started = spawnService(
      {
        PORT: '0',
        LOG_LEVEL: 'info',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'verification-')),
        VERIFY_WORKERS: '1',
        VERIFY_RATE_LIMIT_PER_MINUTE: '0',
        VERIFICATION_CACHE_MAX_ENTRIES: '0',
        // The image's setting (docker/Dockerfile).
        NODE_OPTIONS: '--max-semi-space-size=4',
      },
      [],
    );
    const base = await started.listening();
    for (const unit of ['{}', '[]']) {
      const body = denseItem(unit);
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(BATCH_MAX_BYTES);
      const res = await fetch(`${base}/verify/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body,
      });
      expect(res.status).toBe(200);
      const answers = (await res.text()).split('\n').filter((line) => line !== '');
      expect(answers).toHaveLength(1);
      const answer = JSON.parse(answers[0]!) as { verified: boolean; error_details: { code: string }[] };
      expect(answer.verified).toBe(false);
      expect(answer.error_details[0]?.code).toBe('PROTO-E001');
    }
    expect(started.child.exitCode).toBeNull();
    expect(await metricValue(base, 'proto_verify_pool_threads_stopped_total')).toBe(0);
  }, 120_000);
});
