// P315: `proto verify FILE` on a terminal prints a readable report, and its error and warning lines carry text from the
// bundle (an unsupported `dcp_bundle_version`, ids named in a mismatch, …). Written raw, a bundle's escape sequences
// (ESC [ … A to move the cursor up, ESC [ J to clear, CR) let a file that fails redraw the report as VERIFIED with
// every check `pass`. The report now writes every control, format and separator character of the data as ⟨U+XXXX⟩,
// as the web console does (P157), so what is on the terminal is what is in the data.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildSignedBundle } from '@proto/core';
import { tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.ts';

const work = tempDirSync('cli-redteam-terminal');
afterAll(() => work.remove());

type Json = Record<string, unknown>;

/** Controls (but the report's own line feeds), format characters (bidi, zero-width), separators. */
const TERMINAL_HAZARD = /(?!\n)[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

const ESC = '\u001b';
/**
 * The report's error line is its 19th: up 18 lines to "NOT VERIFIED", erase it and write VERIFIED, back down, erase
 * the error line and hide whatever the CLI writes after it (SGR 8, concealed). Within the 100 characters a message
 * quotes of a value.
 */
const PAYLOAD = `\r${ESC}[18A${ESC}[2KVERIFIED${ESC}[18B\r${ESC}[2K${ESC}[8m`;

function fileWith(name: string, edit: (bundle: Json) => void): string {
  const signed = buildSignedBundle({ tier: 'standard', entries: 1 }).signed_bundle as Json;
  edit(signed['bundle'] as Json);
  const file = path.join(work.dir, name);
  writeFileSync(file, JSON.stringify(signed));
  return file;
}

describe('P315: the terminal report writes the data’s control characters out', () => {
  it('a bundle whose version carries escape sequences cannot redraw its failed report as VERIFIED', async () => {
    const file = fileWith('forged-version.json', (bundle) => {
      bundle['dcp_bundle_version'] = `2.0${PAYLOAD}`;
    });
    const run = await runInProcess(['verify', file], { terminal: true });
    expect(run.code).toBe(1);
    expect(run.stdout.startsWith('NOT VERIFIED\n')).toBe(true);
    // Before P315 the ESC, CR and the payload's own newlines reached the terminal as they are.
    expect(run.stdout).not.toMatch(TERMINAL_HAZARD);
    expect(run.stdout).toContain('2.0⟨U+000D⟩⟨U+001B⟩[18A⟨U+001B⟩[2KVERIFIED⟨U+001B⟩[18B');
  });

  it('ids named in a mismatch, and uncovered member names, are written out the same way', async () => {
    const file = fileWith('forged-ids.json', (bundle) => {
      const intent = (bundle['intent'] as Json)['payload'] as Json;
      intent['agent_id'] = `agent-${ESC}[2K\u202Eevil`;
      bundle[`note${ESC}[1A`] = 'uncovered';
    });
    const run = await runInProcess(['verify', file], { terminal: true });
    expect(run.code).toBe(1);
    expect(run.stdout).not.toMatch(TERMINAL_HAZARD);
    expect(run.stdout).toContain('⟨U+001B⟩[2K⟨U+202E⟩evil');
  });

  it('the JSON answer (--json, or not a terminal) is not rewritten by the terminal report', async () => {
    const file = fileWith('forged-json.json', (bundle) => {
      bundle['dcp_bundle_version'] = `2.0${PAYLOAD}`;
    });
    const run = await runInProcess(['verify', file, '--json'], { terminal: true });
    expect(run.code).toBe(1);
    const answer = JSON.parse(run.stdout) as { error_details: { message: string }[] };
    // Core's message spells the quoted value's characters out since P388 (`⟨U+001B⟩`), in every answer alike; the
    // JSON is that message as core wrote it, nothing added for the terminal.
    const spelled = PAYLOAD.replace(
      /[^\x20-\x7e]/g,
      (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`,
    );
    expect(answer.error_details[0]!.message).toBe(`Unsupported bundle version: 2.0${spelled}`);
  });

  it('a bundle as built still prints its clean report (the control)', async () => {
    const file = fileWith('clean.json', () => {});
    const run = await runInProcess(['verify', file], { terminal: true });
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith('VERIFIED\n')).toBe(true);
    expect(run.stdout).not.toContain('⟨U+');
  });
});

describe('P321: error lines write the input’s control characters out too', () => {
  it('a file that is not JSON, whose text carries escape sequences: V8 quotes it in the error, written out', async () => {
    const file = path.join(work.dir, 'not-json.json');
    // V8's JSON.parse message quotes the first characters from the bad token on, escape sequences and all.
    writeFileSync(file, `x${ESC}[1A${ESC}[2KVERIFIED${ESC}[8m`);
    const run = await runInProcess(['verify', file], { terminal: true });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/invalid JSON/);
    // Before P321 the ESC reached the terminal: the cursor moved up and the line above erased.
    expect(run.stderr).not.toMatch(TERMINAL_HAZARD);
    expect(run.stderr).toContain('⟨U+001B⟩[1A⟨U+001B⟩[2K');
  });
});
