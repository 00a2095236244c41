// P247 with the real CLI: `proto hash` gives a V2 bundle the hash the verifier computes, anchors and looks up in a
// log, whatever members no signature covers were added to it (PROTOCOL §8.3 for the bundle as signed).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { uncoveredMemberBundle } from '@proto/core/testing';
import { tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './test-support.ts';

const work = tempDirSync('cli-hash-uncovered');
afterAll(() => work.remove());

describe('P247: proto hash of a V2 bundle with uncovered members', () => {
  it('prints the hashes of the bundle as signed, as the verifier and the console compute them', async () => {
    const fixture = uncoveredMemberBundle();
    const file = path.join(work.dir, 'with-members.json');
    writeFileSync(file, JSON.stringify(fixture.withMembers));
    const run = await runCli(['hash', file]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(out['bundle_hash']).toBe(fixture.bundleHash);
    expect(out['bundle_hash_secondary']).toBe(fixture.bundleHashSecondary);
  });
});
