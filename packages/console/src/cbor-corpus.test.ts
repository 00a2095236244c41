// The console's cbor.js against the service's strict decoder (service-kit's decodeCbor: PROTOCOL §8.2, P82) over
// a fixed corpus: every /verify request of core's bundle corpus (packages/core/test-vectors/bundle-corpus, V1 and
// V2, both profiles) that has a CBOR wire form (a request holding a fraction, such as a risk score of 0.35, has none:
// the wire carries integers only), and each with byte edits drawn from a fixed seed. Both read the same value, or
// both refuse in the same words; the same run every time, so a difference found stays found.
import { readCorpus } from '@proto/core/testing';
import { encodeCbor, decodeCbor as serviceDecodeCbor } from '@proto/service-kit';
import { cborEdits, cborOutcome, mutated } from '@proto/service-kit/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

// A plain ES module without type declarations: loaded as the browser loads it.
const cbor = (await import(new URL('../public/shared/cbor.js', import.meta.url).href)) as {
  decodeCbor(bytes: Uint8Array): unknown;
};

/** The seed of the byte edits; a new seed is a new corpus. */
const SEED = 0x0c_b0_2c;
const EDITS_PER_CASE = 24;

describe("cbor.js reads core's bundle corpus as the service does", () => {
  const cases = readCorpus().cases.flatMap((corpusCase) => {
    try {
      return [{ id: corpusCase.stored.id, bytes: encodeCbor(corpusCase.request) }];
    } catch {
      return []; // a fraction somewhere in the request: JSON only
    }
  });
  const edits = fc.sample(cborEdits, { seed: SEED, numRuns: cases.length * EDITS_PER_CASE });

  it('the same value for every request of the corpus, and the same value or refusal for each edited one', () => {
    expect(cases.length).toBeGreaterThanOrEqual(90); // of 109
    let refused = 0;
    let read = 0;
    cases.forEach(({ id: name, bytes }, index) => {
      // The page's reader is given a plain Uint8Array, as a dropped file gives it.
      const page = cborOutcome(cbor.decodeCbor, Uint8Array.from(bytes));
      expect(page, name).toStrictEqual(cborOutcome(serviceDecodeCbor, bytes));
      expect(page, name).toHaveProperty('value');
      for (const edit of edits.slice(index * EDITS_PER_CASE, (index + 1) * EDITS_PER_CASE)) {
        const changed = mutated(bytes, edit);
        const service = cborOutcome(serviceDecodeCbor, changed);
        expect(
          cborOutcome(cbor.decodeCbor, Uint8Array.from(changed)),
          `${name} ${JSON.stringify(edit)}`,
        ).toStrictEqual(service);
        if ('refused' in service) refused++;
        else read++;
      }
    });
    // The edits reach both sides of the reader: values changed in place and structures broken.
    expect(refused).toBeGreaterThan(cases.length);
    expect(read).toBeGreaterThan(cases.length);
  });
});
