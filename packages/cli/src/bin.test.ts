// The `proto` command as a user installs it: the workspace bin (node_modules/.bin/proto), `--version`, readable output
// on a terminal and the /verify JSON with --json. Issue 13 item 7; exit codes as documented in `proto --help`.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSignedBundle } from '@proto/core';
import { runProcessSync, tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = `${ROOT}node_modules/.bin/proto`;
const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const work = tempDirSync('cli-bin');
afterAll(() => work.remove());

function run(args: readonly string[], options: { terminal?: boolean } = {}) {
  // On a pseudo-terminal, as an interactive shell would run it.
  return runProcessSync(BIN, args, options);
}

describe('the installed proto bin', () => {
  const built = buildSignedBundle({ tier: 'standard' });
  const bundleFile = `${work.dir}/bundle.json`;
  writeFileSync(bundleFile, JSON.stringify(built.signed_bundle));
  const tampered = structuredClone(built.signed_bundle) as {
    bundle: { agent_passport: { payload: Record<string, unknown> } };
  };
  tampered.bundle.agent_passport.payload['agent_id'] = 'agent:someone-else';
  const tamperedFile = `${work.dir}/tampered.json`;
  writeFileSync(tamperedFile, JSON.stringify(tampered));

  it('prints its version', () => {
    const result = run(['--version']);
    expect(result.stdout.trim()).toBe(VERSION);
    expect(result.code).toBe(0);
  });

  it('verifies readably on a terminal: verdict, tier and checks, exit 0', () => {
    const result = run(['verify', bundleFile], { terminal: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/VERIFIED/);
    expect(result.stdout).toMatch(/tier\s+standard/);
    expect(() => JSON.parse(result.stdout)).toThrow();
  });

  it('answers the /verify JSON with --json, even on a terminal', () => {
    const result = run(['verify', '--json', bundleFile], { terminal: true });
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as { verified: boolean; resolved_tier: string };
    expect(json).toMatchObject({ verified: true, resolved_tier: 'standard' });
  });

  it('says NOT VERIFIED with the error codes and exits 1 on a tampered bundle', () => {
    const readable = run(['verify', tamperedFile], { terminal: true });
    expect(readable.code).toBe(1);
    expect(readable.stdout).toMatch(/NOT VERIFIED/);
    expect(readable.stdout).toMatch(/PROTO-E\d{3}/);
    const json = run(['verify', '--json', tamperedFile]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ verified: false });
  });
});
