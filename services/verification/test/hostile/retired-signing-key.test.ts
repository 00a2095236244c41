// P282 over HTTP against the real verification service with its key directory (issue 15 item 5, P45): once a newer
// verified passport of an agent drops a key, the directory retires it. A bundle signed with that key and carrying an
// older passport that still lists it verified with no word of the retirement: whoever holds the dropped key (the
// reason keys are rotated) could keep producing "verified" bundles for the agent. Now the answer says so in a warning.
import { createNativeBackend, generateBundleKeys } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBundles, agentIdOf, retiredWarningsOf } from './retired-kid-services.ts';
import { startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();

// P370: the look-up is the operator's choice (RETIRED_KEY_WARNINGS); P410: on by default, off asks the store nothing.
const SETTINGS = dialectsUnderTest().flatMap((dialect) => [
  { dialect, warnings: true },
  { dialect, warnings: false },
]);

describe.each(SETTINGS)(
  'P282: a bundle signed by a key the directory retired, on $dialect, RETIRED_KEY_WARNINGS=$warnings',
  ({ dialect, warnings: warned }) => {
    let verifier: VerifierWithRecords;
    beforeAll(async () => {
      verifier = await startVerifierWithRecords(dialect, 'retired-signing-key', {
        // P410: on by default; only `false` turns it off.
        ...(warned ? {} : { RETIRED_KEY_WARNINGS: 'false' }),
      });
    });
    afterAll(async () => {
      await verifier?.close();
    });

    const agent = generateBundleKeys(backend);
    const rotated = generateBundleKeys(backend);
    /**
     * The agent's bundle at `minutes` after start, signed by `signer` (the agent's key set or the one rotated out
     * later), its passport naming the agent and listing exactly `listed`.
     */
    const { bundleAt } = agentBundles();
    const verify = async (built: ReturnType<typeof bundleAt>) => {
      const answer = await verifier.post('/verify', { signed_bundle: built.signed_bundle });
      expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(true);
      return answer.json;
    };
    const retiredWarnings = retiredWarningsOf;

    it('is verified with no such warning while the key is live, and warned about once a newer passport drops it', async () => {
      // The agent's first passport lists both key sets; it binds them to the agent.
      const first = bundleAt(0, agent, [agent, rotated]);
      const id = agentIdOf(first);
      await verify(first);
      expect(await verifier.keyStatusOnce(rotated.classical.kid, 200)).toBe(200);

      // Signed by the second key set, under an older passport listing both: verified, no warning (the control).
      const byRotated = bundleAt(5, rotated, [agent, rotated], id);
      expect(retiredWarnings(await verify(byRotated))).toEqual([]);

      // A newer passport, signed by the agent's key, no longer lists the second set: the directory retires it.
      await verify(bundleAt(10, agent, [agent]));
      expect(await verifier.keyStatusOnce(rotated.classical.kid, 404)).toBe(404);

      // The same bytes again (a verdict-cache hit) and a fresh bundle signed by the dropped key: each warned.
      for (const built of [byRotated, bundleAt(6, rotated, [agent, rotated], id)]) {
        const answer = await verify(built);
        const warnings = retiredWarnings(answer);
        if (!warned) {
          // Off: verified as before P282, with no word of the retirement.
          expect(warnings, JSON.stringify(answer)).toEqual([]);
          continue;
        }
        // Both halves of the dropped key set signed (Ed25519 and ML-DSA-65): one warning each.
        expect(warnings, JSON.stringify(answer)).toHaveLength(2);
        expect(warnings.join('\n')).toContain(rotated.classical.kid);
        expect(warnings.join('\n')).toContain(rotated.pq?.kid);
        expect(warnings[0]).toContain(id);
      }

      // The agent's own live key still signs without the warning.
      expect(retiredWarnings(await verify(bundleAt(11, agent, [agent])))).toEqual([]);
    });
  },
);
