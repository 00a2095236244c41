// .ci/run's background steps (.ci/background.sh, P546), driven through real bash: the container checks run beside
// other steps, so a failure of theirs must still fail CI with their output shown, and CI ending early (a lint
// failure) must stop them, their cleanup included, and leave no process of theirs behind.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const LIBRARY = fileURLToPath(new URL('../.ci/background.sh', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'proto-ci-background-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs a bash script that has sourced the library (with .ci/run's settings); its exit code and output. */
function bash(script: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\nsource '${LIBRARY}'\n${script}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TMPDIR: work },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** True while a process with this id runs: a zombie (ended, not yet reaped by init) does not. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('.ci/background.sh', () => {
  it("a step's failure is the wait's exit code, with all of its output printed, stdout and stderr", async () => {
    const run = await bash(`
      bg_start checks bash -c 'echo first line; echo to stderr >&2; echo "FAIL something"; exit 3'
      echo "another step runs meanwhile"
      rc=0
      bg_wait checks || rc=$?
      echo "rc=$rc seconds=\${BG_SECONDS[checks]}"
      exit "$rc"`);
    expect(run.code).toBe(3);
    expect(run.out).toContain('another step runs meanwhile');
    expect(run.out).toMatch(/first line\n(?:.|\n)*to stderr\n(?:.|\n)*FAIL something\n/);
    expect(run.out).toMatch(/rc=3 seconds=\d+\n/);
  });

  it('a step that passes waits to 0 and leaves no temporary file', async () => {
    const run = await bash(`
      bg_start checks echo "42 passed, 0 failed"
      bg_wait checks
      echo "rc=$?"
      ls "$TMPDIR" | grep -c ci-background || true`);
    expect(run.code).toBe(0);
    expect(run.out).toBe('42 passed, 0 failed\nrc=0\n0\n');
  });

  it('CI ending early stops the step and every process under it, lets its cleanup run, and keeps its exit code', async () => {
    const pids = join(work, 'pids');
    const step = join(work, 'step.sh');
    // A stand-in for the container script: a cleanup on SIGTERM, and a child under `timeout`, which puts its
    // command in a process group of its own (a signal to the step's group would miss it).
    writeFileSync(
      step,
      `trap 'echo "cleanup ran"; exit 130' TERM
       echo "building"
       timeout 300 sleep 300 &
       echo "$!" >'${pids}'
       wait "$!"
       echo "never reached"`,
    );
    const run = await bash(`
      trap 'rc=$?; bg_stop_all; exit $rc' EXIT
      bg_start containers bash '${step}'
      until [[ -s '${pids}' ]]; do sleep 0.1; done
      echo "lint failed"
      exit 1`);
    expect(run.code).toBe(1);
    expect(run.out).toContain('lint failed');
    expect(run.out).toMatch(
      /=== containers: stopped \(CI ended before it was waited for\)(?:.|\n)*building\ncleanup ran\n/,
    );
    expect(run.out).not.toContain('never reached');
    const timeoutPid = Number(readFileSync(pids, 'utf8'));
    expect(running(timeoutPid)).toBe(false);
  });
});
