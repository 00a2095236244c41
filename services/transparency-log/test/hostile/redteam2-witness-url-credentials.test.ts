// A witness URL in LOG_WITNESSES written with `user:password@` (a witness behind basic auth), the providers'
// `:<key>@`, or a `?token=`. fetch refuses a URL with userinfo, so such a witness was never asked: every round
// counted it `unavailable`, and with the default quorum (every witness) no new checkpoint was ever published.
// P541: the log refuses such an entry at boot, naming the variable and the entry, never the value, as P196 refuses
// ANCHOR_SERVICE_URL. The logger's scrub (P529's pin, brief redteam2) stays tested with the URL set past the loader.
import { formatCosignerKey, parseCosignerKey } from '@proto/core';
import { ConfigError } from '@proto/service-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTransparencyLog } from '../../src/app.ts';
import { loadTransparencyLogConfig } from '../../src/config.ts';
import { appendHashes, testCosigner, testLogIdentity } from '../../src/test-helpers.ts';
import { bundleHash, tempDataDir, testConfig } from '../../src/test-support.ts';
import { witnessId } from '../../src/witness-config.ts';
import { boot } from './testing/boot-main.ts';

const SECRET = 'w1tness-s3cret';
const identity = testLogIdentity('log.test/witness-url-credentials');
const vkey = formatCosignerKey(testCosigner('witness.test/credentials'));
const otherVkey = formatCosignerKey(testCosigner('witness.test/plain'));
const removals: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const remove of removals) await remove();
});

const REFUSED: Record<string, string> = {
  'list form, user:password@': `https://witness.example/a ${otherVkey}, http://ops:${SECRET}@127.0.0.1:9 ${vkey}`,
  'JSON form, user:password@': JSON.stringify([{ url: `http://ops:${SECRET}@127.0.0.1:9`, key: vkey }]),
  'provider form :<key>@': `https://:${SECRET}@witness.example ${vkey}`,
  'a user name alone': `https://${SECRET}@witness.example ${vkey}`,
  'a query': `https://witness.example/w?token=${SECRET} ${vkey}`,
  'a fragment': `https://witness.example/w#${SECRET} ${vkey}`,
};

describe('P541: a LOG_WITNESSES entry with a credential is refused at boot', () => {
  for (const [name, witnesses] of Object.entries(REFUSED)) {
    it(`${name}: a ConfigError naming LOG_WITNESSES and the entry, never the value`, () => {
      let error: unknown;
      try {
        loadTransparencyLogConfig({ ...identity.env, LOG_WITNESSES: witnesses });
      } catch (caught) {
        error = caught;
      }
      expect(error, name).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variables).toEqual(['LOG_WITNESSES']);
      expect((error as ConfigError).message).toMatch(/^LOG_WITNESSES\[\d\]/);
      expect((error as ConfigError).message).not.toContain(SECRET);
    });
  }

  it('the same URLs without the credential load as before', () => {
    const loaded = loadTransparencyLogConfig({
      ...identity.env,
      LOG_WITNESSES: `https://witness.example/w/ ${vkey}`,
    });
    expect(loaded.LOG_WITNESSES.map((w) => w.url)).toEqual(['https://witness.example/w']);
  });

  it('the real log process exits 1, its output naming the variable and not the password', async () => {
    const data = await tempDataDir('witness-url-credentials-boot');
    removals.push(data.remove);
    const { code, output } = await boot({
      ...identity.env,
      DATA_DIR: data.dir,
      LOG_WITNESSES: REFUSED['list form, user:password@'] as string,
    });
    expect(code, output).toBe(1);
    expect(output).toContain('LOG_WITNESSES');
    expect(output).not.toContain(SECRET);
  }, 30_000);
});

describe('P529 held: a witness URL with credentials set past the loader', () => {
  it('the round counts the witness unavailable and no line carries the password', async () => {
    const temp = await tempDataDir('witness-url-credentials');
    removals.push(temp.remove);
    const key = parseCosignerKey(vkey);
    if (!key.ok) throw new Error(key.error.message);
    const config = testConfig(temp.dir, { ...identity.env, LOG_LEVEL: 'warn' });
    const lines: string[] = [];
    const log = await buildTransparencyLog({
      config: {
        ...config,
        LOG_WITNESSES: [
          { url: `http://ops:${SECRET}@127.0.0.1:9`, key: key.value, id: witnessId(key.value) },
        ],
      },
      logger: { stream: { write: (line: string) => lines.push(line) } },
      timers: false,
    });
    try {
      await appendHashes(log, [bundleHash(0, 'witness-url-credentials')]);
      await log.transparencyLog.checkpointer.tick();
      const text = lines.join('');
      expect(text).toContain('"outcome":"unavailable"');
      // P580: fetchBounded now sends the userinfo as Basic instead of fetch refusing it; the witness here is still
      // unreachable, and the password is still in no line.
      expect(text).not.toContain(SECRET);
    } finally {
      await log.close();
    }
  });
});
