// Secret key files: generated with mode 0600 and never overwritten, tightened when readable by others,
// malformed content and unusable paths refused with a ConfigError that names the file and the variable.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNativeBackend, encodeBase64 } from '@proto/core';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from './config.ts';
import { ed25519PublicFromSeed, parseEd25519SecretKey, readOrCreateKeyFile } from './key-file.ts';

const backend = createNativeBackend();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'proto-key-file-'));
  dirs.push(dir);
  return dir;
}

function recordingLog() {
  const warnings: string[] = [];
  return {
    warnings,
    log: { info: () => undefined, warn: (_obj: object, msg: string) => warnings.push(msg) },
  };
}

const freshKey = () => backend.generateKeyPair('ed25519').secretKey;

describe('readOrCreateKeyFile', () => {
  it('generates the file (and its folder) with mode 0600 and never overwrites it', () => {
    const filePath = join(tempDir(), 'nested', 'test.key');
    const { log } = recordingLog();
    const options = { filePath, generate: freshKey, what: 'test key', variable: 'TEST_KEY_FILE', log };
    const first = readOrCreateKeyFile(options);
    expect(first.generated).toBe(true);
    expect(statSync(filePath).mode & 0o777).toBe(0o600);
    expect(parseEd25519SecretKey(first.text, filePath)).toHaveLength(64);
    const again = readOrCreateKeyFile(options);
    expect(again.generated).toBe(false);
    expect(again.text).toBe(first.text);
    expect(readFileSync(filePath, 'utf8')).toBe(first.text);
  });

  it('resets a file readable by others to 0600 and says so', () => {
    const filePath = join(tempDir(), 'test.key');
    writeFileSync(filePath, `${encodeBase64(freshKey())}\n`);
    chmodSync(filePath, 0o644);
    const { log, warnings } = recordingLog();
    readOrCreateKeyFile({ filePath, generate: freshKey, what: 'test key', variable: 'TEST_KEY_FILE', log });
    expect(statSync(filePath).mode & 0o777).toBe(0o600);
    expect(warnings).toEqual(['test key file was readable by others; mode reset to 0600']);
  });

  it('refuses a path it cannot create with a ConfigError naming the file and the variable', () => {
    const blocker = join(tempDir(), 'a-file');
    writeFileSync(blocker, 'not a folder');
    const { log } = recordingLog();
    const attempt = () =>
      readOrCreateKeyFile({
        filePath: join(blocker, 'test.key'),
        generate: freshKey,
        what: 'test key',
        variable: 'TEST_KEY_FILE',
        log,
      });
    const error = (() => {
      try {
        attempt();
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(
      /^cannot create the folder of the test key file .*a-file\/test\.key \((EEXIST|ENOTDIR)\)$/,
    );
    expect((error as ConfigError).variables).toEqual(['TEST_KEY_FILE']);
  });
});

describe('parseEd25519SecretKey', () => {
  it('accepts seed ‖ public key and a 32-byte seed alone, to the same key', () => {
    const secretKey = freshKey();
    expect(parseEd25519SecretKey(encodeBase64(secretKey), 'K')).toEqual(secretKey);
    expect(parseEd25519SecretKey(`${encodeBase64(secretKey.slice(0, 32))}\n`, 'K')).toEqual(secretKey);
    expect(ed25519PublicFromSeed(secretKey.slice(0, 32))).toEqual(secretKey.slice(32));
  });

  it('refuses a malformed file with a clear error naming it', () => {
    for (const text of ['not a key', encodeBase64(new Uint8Array(48)), '']) {
      expect(() => parseEd25519SecretKey(text, '/data/test.key', ['TEST_KEY_FILE'])).toThrow(
        /^\/data\/test\.key must be standard base64 of an Ed25519 secret key \(64 bytes seed ‖ public key, or a 32-byte seed\)$/,
      );
    }
  });

  it('refuses a public half that does not belong to the seed', () => {
    const mismatched = Uint8Array.from(freshKey());
    mismatched[40] = (mismatched[40] ?? 0) ^ 1;
    expect(() => parseEd25519SecretKey(encodeBase64(mismatched), 'TEST_KEY')).toThrow(
      'TEST_KEY: the public half does not belong to the seed',
    );
  });
});
