// The witness's configuration: the WITNESS_LOGS forms and their errors, WITNESS_NAME, and the key file
// (generated 0600, a 32-byte seed accepted, a bad or mismatched key refused by name). Issue 18 item 2.
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeBase64, parseCosignerKey, selectCryptoBackend } from '@proto/core';
import { ConfigError } from '@proto/service-kit';
import { tempDir } from '@proto/testing';
import { describe, expect, it } from 'vitest';
import { loadWitnessConfig } from './config.ts';
import { TestLog } from './test-support.ts';
import { loadWitnessKey } from './witness-key.ts';
import { loadWitnessedLogs, parseWitnessedLogs } from './witnessed-logs.ts';

const quiet = { info: () => undefined, warn: () => undefined };
const backend = selectCryptoBackend();

describe('WITNESS_LOGS', () => {
  const a = new TestLog('log.test/a');
  const b = new TestLog('log.test/b');
  const b2 = new TestLog('log.test/b');

  it('reads vkeys alone, "<origin> <vkey>…", several per line or ";"-separated, and comments', () => {
    const logs = parseWitnessedLogs(
      `# the logs\n${a.vkey}\n  ${b.vkey} ${b2.vkey} # two keys ;\nother.origin ${a.vkey}`,
      'X',
    );
    expect(logs.map((l) => [l.origin, l.keys.length])).toEqual([
      ['log.test/a', 1],
      ['log.test/b', 2],
      ['other.origin', 1],
    ]);
    expect(parseWitnessedLogs(`${a.vkey};${b.vkey}`, 'X').map((l) => l.origin)).toEqual([a.origin, b.origin]);
    expect(parseWitnessedLogs('  \n# none\n', 'X')).toEqual([]);
  });

  it('names the variable at fault for a bad key, mixed names, or an origin without keys', () => {
    for (const bad of [`${a.vkey} ${b.vkey}`, 'log.test/a', `log.test/a ${a.vkey.slice(0, -4)}AAAA`, 'x y']) {
      expect(() => parseWitnessedLogs(bad, 'WITNESS_LOGS')).toThrow(ConfigError);
      try {
        parseWitnessedLogs(bad, 'WITNESS_LOGS');
      } catch (error) {
        expect((error as ConfigError).variables).toEqual(['WITNESS_LOGS']);
      }
    }
  });

  it('reads WITNESS_LOGS_FILE, refuses both variables at once and an unreadable file', async () => {
    const dir = await tempDir('witness-logs-file');
    try {
      const file = join(dir.dir, 'logs.txt');
      await writeFile(file, `# witnessed\n${a.vkey}\n`);
      expect(loadWitnessedLogs({ WITNESS_LOGS_FILE: file }).map((l) => l.origin)).toEqual([a.origin]);
      expect(() => loadWitnessedLogs({ WITNESS_LOGS_FILE: join(dir.dir, 'missing') })).toThrow(
        /WITNESS_LOGS_FILE/,
      );
      expect(() => loadWitnessConfig({ WITNESS_LOGS: a.vkey, WITNESS_LOGS_FILE: file })).toThrow(ConfigError);
    } finally {
      await dir.remove();
    }
  });

  it('validates WITNESS_NAME and the port default', () => {
    expect(loadWitnessConfig({}).PORT).toBe(3004);
    expect(() => loadWitnessConfig({ WITNESS_NAME: 'has space' })).toThrow(/WITNESS_NAME/);
    expect(() => loadWitnessConfig({ WITNESS_NAME: 'a+b' })).toThrow(/WITNESS_NAME/);
  });
});

describe('witness key file', () => {
  it('generates a 0600 key once, then reads the same key; tightens a loose mode', async () => {
    const dir = await tempDir('witness-key');
    try {
      const first = loadWitnessKey({
        name: 'w.test/k',
        keyFile: undefined,
        dataDir: dir.dir,
        backend,
        log: quiet,
      });
      expect(first.generated).toBe(true);
      expect((await stat(first.filePath)).mode & 0o777).toBe(0o600);
      await chmod(first.filePath, 0o644);
      const again = loadWitnessKey({
        name: 'w.test/k',
        keyFile: undefined,
        dataDir: dir.dir,
        backend,
        log: quiet,
      });
      expect(again.generated).toBe(false);
      expect(again.vkey).toBe(first.vkey);
      expect((await stat(first.filePath)).mode & 0o777).toBe(0o600);
      expect(parseCosignerKey(first.vkey).ok).toBe(true);
    } finally {
      await dir.remove();
    }
  });

  it('accepts a 32-byte seed; refuses garbage and a public half that is not the seed’s', async () => {
    const dir = await tempDir('witness-key-file');
    try {
      const pair = backend.generateKeyPair('ed25519');
      const file = join(dir.dir, 'key');
      const load = () =>
        loadWitnessKey({ name: 'w.test/k', keyFile: file, dataDir: dir.dir, backend, log: quiet });
      await writeFile(file, encodeBase64(pair.secretKey.slice(0, 32)), { mode: 0o600 });
      const fromSeed = load();
      await writeFile(file, encodeBase64(pair.secretKey), { mode: 0o600 });
      expect(load().vkey).toBe(fromSeed.vkey);
      await writeFile(file, 'not a key');
      expect(load).toThrow(ConfigError);
      const mismatched = Uint8Array.from(pair.secretKey);
      mismatched[40] = (mismatched[40] ?? 0) ^ 1;
      await writeFile(file, encodeBase64(mismatched));
      expect(load).toThrow(/public half/);
      expect((await readFile(file, 'utf8')).length).toBeGreaterThan(0);
      expect(() =>
        loadWitnessKey({
          name: 'w',
          keyFile: join(file, 'under-a-file'),
          dataDir: dir.dir,
          backend,
          log: quiet,
        }),
      ).toThrow(ConfigError);
    } finally {
      await dir.remove();
    }
  });
});
