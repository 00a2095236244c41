// The single-file `proto` (`pnpm build:cli`, Node single executable application) run from outside the repository:
// --version, a readable verdict on a terminal, the /verify JSON with --json, exit 1 when not verified. Issue 13 item 7.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSignedBundle } from '@proto/core';
import { runProcessSync, tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EXECUTABLE = `${ROOT}dist/cli/proto`;
const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const work = tempDirSync('cli-sea');
afterAll(() => work.remove());

function run(args: readonly string[], options: { terminal?: boolean } = {}) {
  // cwd outside the repository: the executable must carry everything it needs (schemas included).
  return runProcessSync(EXECUTABLE, args, { ...options, cwd: work.dir });
}

describe('the single-file proto executable', () => {
  const built = buildSignedBundle({ tier: 'standard' });
  const bundleFile = `${work.dir}/bundle.json`;
  writeFileSync(bundleFile, JSON.stringify(built.signed_bundle));
  const tampered = structuredClone(built.signed_bundle) as {
    bundle: { agent_passport: { payload: Record<string, unknown> } };
  };
  tampered.bundle.agent_passport.payload['agent_id'] = 'agent:someone-else';
  const tamperedFile = `${work.dir}/tampered.json`;
  writeFileSync(tamperedFile, JSON.stringify(tampered));

  beforeAll(() => {
    const build = spawnSync('pnpm', ['build:cli'], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
    expect(build.status, `${build.stdout}${build.stderr}`).toBe(0);
    expect(existsSync(EXECUTABLE)).toBe(true);
  }, 240_000);

  it('prints its version', () => {
    const result = run(['--version']);
    expect(result.stdout.trim()).toBe(VERSION);
    expect(result.code).toBe(0);
  });

  it('verifies readably on a terminal and prints the /verify JSON with --json', () => {
    const readable = run(['verify', 'bundle.json'], { terminal: true });
    expect(readable.code).toBe(0);
    expect(readable.stdout).toMatch(/VERIFIED/);
    expect(readable.stdout).toMatch(/schema\s+pass/); // the embedded JSON Schemas ran
    const json = run(['verify', '--json', 'bundle.json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ verified: true, resolved_tier: 'standard' });
  });

  it('exits 1 with the error codes on a tampered bundle', () => {
    const result = run(['verify', '--json', tamperedFile]);
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as { verified: boolean; error_details: { code: string }[] };
    expect(json.verified).toBe(false);
    expect(json.error_details.map((d) => d.code).join(' ')).toMatch(/PROTO-E\d{3}/);
  });
});
