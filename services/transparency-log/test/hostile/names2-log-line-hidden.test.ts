// P597 (brief "names2" item 1): a witness in LOG_WITNESSES (or anything else whose text the service logs: an
// upstream's error, a refusal's body) writes characters a terminal acts on into a log line. The log keeps up to 200
// characters of a refusal's body as the warn line's `reason`, and pino's JSON escapes only U+0000–U+001F: U+009B
// (CSI, a terminal's `ESC [` in one character) went out raw, so an operator following the log on a terminal
// (`docker logs -f`) ran `CSI 2 J CSI 1 A …`: the screen cleared, earlier lines overwritten; a U+202E reversed the
// rest of the line. The real log and a witness front over HTTP: every line the service writes carries them as
// `\uXXXX` escapes, and parses to the same text.
import type { Cosigner } from '@proto/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendHashes, testCosigner, testLogIdentity } from '../../src/test-helpers.ts';
import { bundleHash } from '../../src/test-support.ts';
import { startTwoOfTwoLog, type TwoOfTwoLog } from './testing/two-of-two-log.ts';

const hostile: Cosigner = testCosigner('witness.test/names2-hidden');
const REFUSAL = 'unknown log\u009b2J\u009b1A\u009b2K{"level":30,"msg":"cosigned"}\u202e\u200b\u2028\u007f';
/** What a terminal acts on or hides that JSON leaves raw: DEL and C1, format characters, separators. */
const RAW_HIDDEN = /[\u007f-\u009f\p{Cf}\u2028\u2029]/u;

describe('P597: log lines carry no raw character a terminal acts on or hides', () => {
  const lines: string[] = [];
  let setup: TwoOfTwoLog;
  beforeAll(async () => {
    setup = await startTwoOfTwoLog({
      identity: testLogIdentity('log.test/names2-hidden'),
      honestName: 'witness.test/names2-honest',
      frontKey: hostile,
      answer: (_request, res) => {
        res.writeHead(403, { 'content-type': 'text/plain' }).end(REFUSAL);
      },
      label: 'names2-hidden',
      env: { LOG_LEVEL: 'info' },
      logLines: lines,
    });
  });
  afterAll(async () => {
    await setup?.close();
  });

  it("a witness's refusal holding CSI sequences, a bidi override and a line separator", async () => {
    await appendHashes(setup.log, [bundleHash(0, 'names2-hidden')]);
    await setup.log.transparencyLog.checkpointer.tick();
    const refused = lines.filter((line) => line.includes('witness refused the checkpoint'));
    expect(refused.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toMatch(RAW_HIDDEN);
    expect((JSON.parse(refused[0] ?? '{}') as { reason?: string }).reason).toBe(REFUSAL.trim());
  });
});
