// A batch item is read only within /verify's own body limit (P142): a larger one gets the /verify 413 body in its
// place, unparsed, the items around it are verified, and the densest JSON within the limit (a megabyte of empty
// objects, ~19 bytes of heap a byte) is refused as what it is without ending a thread or the process. A cap on the
// threads' old generation (P140, withdrawn) failed the last part: V8 ended the thread, and while Node disposed of
// its isolate the process aborted ("Reached heap limit"), so one request stopped the service.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_BODY_LIMIT } from '@proto/service-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { metricValue, type SpawnedService, sampleBundle, spawnService } from './test-support.ts';

const BATCH_MAX_BYTES = 8 * 1048576;
let started: SpawnedService | undefined;

afterEach(async () => {
  if (started !== undefined && started.child.exitCode === null) {
    started.child.kill('SIGTERM');
    await started.exit;
  }
  started = undefined;
});

/** `{"signed_bundle":{"bundle":[unit,unit,…]}}` of at most `bytes` bytes, as close to it as the unit allows. */
function denseItem(unit: string, bytes: number): string {
  const head = '{"signed_bundle":{"bundle":[';
  const tail = ']}}';
  const count = Math.floor((bytes - head.length - tail.length + 1) / (unit.length + 1));
  return `${head}${Array.from({ length: count }, () => unit).join(',')}${tail}`;
}

async function batch(base: string, lines: readonly string[]) {
  const res = await fetch(`${base}/verify/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: `${lines.join('\n')}\n`,
  });
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const tooLarge = {
  error: {
    code: 'PAYLOAD_TOO_LARGE',
    message: `Request body exceeds the limit of ${DEFAULT_BODY_LIMIT} bytes`,
    retryable: false,
  },
};

describe('POST /verify/batch items against /verify’s body limit', () => {
  it('answers an item over it with /verify’s 413 body, and the densest item within it as a schema refusal', async () => {
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
    const good = JSON.stringify({
      signed_bundle: sampleBundle({ tier: 'routine', entries: 2 }).signed_bundle,
    });
    const over = denseItem('{}', DEFAULT_BODY_LIMIT + 3);
    const within = denseItem('{}', DEFAULT_BODY_LIMIT);
    expect(Buffer.byteLength(over)).toBeGreaterThan(DEFAULT_BODY_LIMIT);
    expect(Buffer.byteLength(within)).toBeLessThanOrEqual(DEFAULT_BODY_LIMIT);

    const answers = await batch(base, [good, over, within, good]);
    expect(answers).toHaveLength(4);
    expect(answers[0]!['verified']).toBe(true);
    expect(answers[1]).toEqual(tooLarge);
    expect(answers[2]!['verified']).toBe(false);
    expect((answers[2]!['error_details'] as { code: string }[])[0]?.code).toBe('PROTO-E001');
    expect(answers[3]!['verified']).toBe(true);

    // One item as large as the batch allows (8 MiB of empty arrays): refused unread.
    const whole = denseItem('[]', BATCH_MAX_BYTES - 1);
    expect(await batch(base, [whole])).toEqual([tooLarge]);

    expect(started.child.exitCode).toBeNull();
    expect(await metricValue(base, 'proto_verify_pool_threads_stopped_total')).toBe(0);
  }, 120_000);
});
