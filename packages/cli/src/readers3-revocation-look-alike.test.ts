// P456 (brief "readers3" item 4): `proto revocation verify` names a list's look-alike entries. A jurisdiction's list is
// signed by its issuer, not written by this stack's revocation service (which takes only ASCII ids: ids.ts), and its
// schema lets `entries[].agent_id` be any string of six characters or more. A list revoking `agent:аlpha` (a Cyrillic
// а) reads, to a person, as revoking `agent:alpha`; `--agent agent:alpha` answered `revoked: false` and not a word,
// so an operator could take the agent for revoked when reading the list and for clean when asking the CLI. The real
// CLI, spawned, on lists signed here.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { signRevocationList } from '@proto/core';
import { at, sampleList, T0, testKey } from '@proto/core/testing';
import { runProcess, tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('./main.ts', import.meta.url));
const work = tempDirSync('readers3-revocation');
afterAll(() => work.remove());

const signer = testKey(7);
const entry = (agentId: string) => ({
  agent_id: agentId,
  revoked_at: at(-3600).toISOString(),
  reason_hash: `sha256:${'ab'.repeat(32)}`,
});
let files = 0;
function listFile(agentIds: readonly string[]): string {
  const signed = signRevocationList(sampleList({ entries: agentIds.map(entry) }), signer.secretKey);
  if (!signed.ok) throw new Error(signed.error.message);
  files += 1;
  const file = `${work.dir}/list-${files}.json`;
  writeFileSync(file, JSON.stringify(signed.value));
  return file;
}
async function verify(file: string, ...agents: string[]) {
  const run = await runProcess(
    process.execPath,
    [
      CLI,
      'revocation',
      'verify',
      file,
      '--key',
      signer.publicKeyB64,
      '--at',
      at(60, T0).toISOString(),
      ...agents.flatMap((a) => ['--agent', a]),
    ],
    { input: '' },
  );
  return { code: run.code, json: JSON.parse(run.stdout) as { verified: boolean; warnings?: string[] } };
}

describe('P456: `proto revocation verify` names look-alike list entries', () => {
  it('an entry that is a look-alike id: named in `warnings`, spelled out', async () => {
    const run = await verify(listFile(['agent:\u0430lpha', 'agent:clean-1']));
    expect(run.code).toBe(0);
    expect(run.json.verified).toBe(true);
    expect(run.json.warnings).toEqual([
      'entries[0].agent_id "agent:⟨U+0430⟩lpha" mixes Latin with Cyrillic or Greek letters: an id that reads the same may be another (look-alike id; not a failure)',
    ]);
  });

  it.each([
    ['a Cyrillic а', 'agent:\u0430lpha', 'agent:⟨U+0430⟩lpha'],
    ['a capital I for l (ASCII)', 'agent:aIpha', 'agent:aIpha'],
    ['a zero-width space', 'agent:al\u200bpha', 'agent:al⟨U+200B⟩pha'],
  ])(
    '--agent agent:alpha, the list revoking %s: not revoked, and the entry that reads the same is named',
    async (_what, listed, spelled) => {
      const run = await verify(listFile([listed]), 'agent:alpha');
      expect(run.code).toBe(0); // agent:alpha itself is not revoked: a warning, not a failure
      expect(run.json.warnings ?? []).toContain(
        `agent agent:alpha is not in the list, but entries[0].agent_id "${spelled}" reads the same: check which agent the issuer meant (look-alike id)`,
      );
    },
  );

  it('controls: a list of plain ids and an agent no entry reads like get no warnings', async () => {
    const run = await verify(
      listFile(['agent:revoked-1', 'agent:beta-22']),
      'agent:alpha',
      'agent:revoked-1',
    );
    expect(run.code).toBe(1); // agent:revoked-1 is revoked
    expect(run.json.warnings).toBeUndefined();
  });
});
