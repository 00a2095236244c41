// A witness URL in LOG_WITNESSES written with `user:password@` (a witness behind basic auth). fetch refuses such a
// URL and its refusal repeats it; the log's warn line for the unreachable witness must not carry the password.
// Held (the log's logger scrubs userinfo, service-kit redactSecrets); pinned here. Brief redteam2; P529.
import { formatCosignerKey } from '@proto/core';
import { afterAll, describe, expect, it } from 'vitest';
import { appendHashes, testCosigner, testLogIdentity } from '../../src/test-helpers.ts';
import { buildTestLog, bundleHash, tempDataDir } from '../../src/test-support.ts';

const SECRET = 'w1tness-s3cret';
const identity = testLogIdentity('log.test/witness-url-credentials');
const vkey = formatCosignerKey(testCosigner('witness.test/credentials'));
const removals: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const remove of removals) await remove();
});

describe('P529 held: LOG_WITNESSES with credentials', () => {
  for (const [name, witnesses] of [
    ['list form', `http://ops:${SECRET}@127.0.0.1:9 ${vkey}`],
    ['JSON form', JSON.stringify([{ url: `http://ops:${SECRET}@127.0.0.1:9`, key: vkey }])],
  ] as const) {
    it(`${name}: the round counts the witness unavailable and no line carries the password`, async () => {
      const temp = await tempDataDir('witness-url-credentials');
      removals.push(temp.remove);
      const lines: string[] = [];
      const log = await buildTestLog(
        temp.dir,
        { ...identity.env, LOG_LEVEL: 'warn', LOG_WITNESSES: witnesses },
        {},
        { timers: false, logLines: lines },
      );
      try {
        await appendHashes(log, [bundleHash(0, 'witness-url-credentials')]);
        await log.transparencyLog.checkpointer.tick();
        const text = lines.join('');
        expect(text).toContain('"outcome":"unavailable"');
        expect(text).toContain('includes credentials');
        expect(text).not.toContain(SECRET);
      } finally {
        await log.close();
      }
    });
  }
});
