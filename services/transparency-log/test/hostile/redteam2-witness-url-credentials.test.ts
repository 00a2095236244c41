// A witness URL in LOG_WITNESSES written with `user:password@` (a witness behind basic auth), the providers'
// `:<key>@`, or a `?token=`. fetch refuses a URL with userinfo, so such a witness was never asked: every round
// counted it `unavailable`, and with the default quorum (every witness) no new checkpoint was ever published.
// P541 refused such an entry at boot. P610 (brief creds3): fetchBounded now sends the userinfo as Basic authorization
// to that origin alone (P580), and the log publishes no witness URL (its metrics, lines and /health name the witness
// by key ID), so userinfo is taken; a query or fragment is still refused (`/add-checkpoint` is appended after it).
// The real main.ts boots with such an entry, and the log in front of a real witness that answers only that
// credential publishes the cosigned checkpoint, the password in no line and no answer.
import { formatCosignerKey, parseCosignerKey } from '@proto/core';
import { ConfigError } from '@proto/service-kit';
import { type HostileFront, listenOnPort0, startBasicAuthFront } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTransparencyLog } from '../../src/app.ts';
import { loadTransparencyLogConfig } from '../../src/config.ts';
import {
  appendHashes,
  logWitnessesEnv,
  servedCheckpoint,
  startWitness,
  testCosigner,
  testLogIdentity,
} from '../../src/test-helpers.ts';
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

const TAKEN: Record<string, string> = {
  'list form, user:password@': `https://witness.example/a ${otherVkey}, http://ops:${SECRET}@127.0.0.1:9 ${vkey}`,
  'JSON form, user:password@': JSON.stringify([{ url: `http://ops:${SECRET}@127.0.0.1:9`, key: vkey }]),
  'provider form :<key>@': `https://:${SECRET}@witness.example ${vkey}`,
  'a user name alone': `https://${SECRET}@witness.example ${vkey}`,
};
const REFUSED: Record<string, string> = {
  'a query': `https://witness.example/w?token=${SECRET} ${vkey}`,
  'a fragment': `https://witness.example/w#${SECRET} ${vkey}`,
};

describe('P610: a LOG_WITNESSES entry with userinfo is taken; a query or fragment still refused (P541)', () => {
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

  for (const [name, witnesses] of Object.entries(TAKEN)) {
    it(`${name}: loads, the URL kept as written for fetchBounded to split`, () => {
      const loaded = loadTransparencyLogConfig({ ...identity.env, LOG_WITNESSES: witnesses });
      expect(loaded.LOG_WITNESSES.some((w) => w.url.includes(`${SECRET}@`))).toBe(true);
    });
  }

  it('the real log process boots and listens, its output without the password', async () => {
    const data = await tempDataDir('witness-url-credentials-boot');
    removals.push(data.remove);
    const { code, output } = await boot({
      ...identity.env,
      DATA_DIR: data.dir,
      LOG_WITNESSES: TAKEN['list form, user:password@'] as string,
    });
    expect(code, output).toBeNull();
    expect(output).toContain('"address"');
    expect(output).not.toContain(SECRET);
  }, 60_000);

  it('a witness behind basic auth cosigns: the checkpoint is published, the password in no line or answer', async () => {
    const witnessDir = await tempDataDir('witness-basic-auth-w');
    removals.push(witnessDir.remove);
    const witness = await startWitness(witnessDir.dir, 'witness.test/basic-auth', [identity]);
    removals.push(() => witness.close());
    const front: HostileFront = await startBasicAuthFront(witness.url, 'ops', SECRET);
    removals.push(() => front.close());
    const temp = await tempDataDir('witness-basic-auth-log');
    removals.push(temp.remove);
    const lines: string[] = [];
    const log = await buildTransparencyLog({
      config: testConfig(temp.dir, {
        ...identity.env,
        LOG_LEVEL: 'info',
        LOG_WITNESSES: logWitnessesEnv([
          { url: front.url.replace('://', `://ops:${SECRET}@`), vkey: witness.vkey },
        ]),
      }),
      logger: { stream: { write: (line: string) => lines.push(line) } },
      timers: false,
    });
    try {
      const at = (await listenOnPort0(log)).url;
      await appendHashes(log, [bundleHash(0, 'witness-basic-auth')]);
      await log.transparencyLog.checkpointer.tick();
      const served = await servedCheckpoint(log);
      expect(served.status, served.note).toBe(200);
      expect(served.note).toContain(`— witness.test/basic-auth `);
      expect(front.requests.length).toBeGreaterThan(0);
      for (const request of front.requests) expect(request.url).not.toContain(SECRET);
      const answers = await Promise.all(
        ['/health', '/ready', '/metrics', '/checkpoint'].map(async (path) =>
          (await fetch(`${at}${path}`)).text(),
        ),
      );
      expect(answers.join('\n')).not.toContain(SECRET);
      expect(lines.join('')).not.toContain(SECRET);
    } finally {
      await log.close();
    }
  }, 60_000);
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
