// P110: the allErrors copy of a schema is compiled on its first rejection, not on first use.
import { readFileSync } from 'node:fs';
import Ajv2020Module from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it, vi } from 'vitest';

const EXAMPLE = new URL('../../test-vectors/schema-examples/awareness_threshold.json', import.meta.url);

/** Each getSchema call on any Ajv, tagged by whether that Ajv collects all errors. */
function spyGetSchema(): Array<{ allErrors: boolean; ref: string }> {
  const calls: Array<{ allErrors: boolean; ref: string }> = [];
  const proto = Ajv2020Module.default.prototype;
  const original = proto.getSchema;
  vi.spyOn(proto, 'getSchema').mockImplementation(function (this: typeof proto, ref: string) {
    // addSchema looks up the meta-schema too; only the registry's own look-ups count here.
    if (ref.includes('awareness_threshold')) calls.push({ allErrors: this.opts.allErrors === true, ref });
    return original.call(this, ref);
  });
  return calls;
}

describe('lazy allErrors compile (P110)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a valid value compiles only the first-error copy; the first rejection compiles the full one, once', async () => {
    vi.resetModules();
    const calls = spyGetSchema();
    const { validateSchema } = await import('./registry.ts');
    const example = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as Record<string, unknown>;

    expect(validateSchema('v2', 'awareness_threshold', example)).toEqual({ valid: true });
    expect(validateSchema('v2', 'awareness_threshold', example)).toEqual({ valid: true });
    expect(calls.filter((c) => c.allErrors)).toEqual([]);
    expect(calls.filter((c) => !c.allErrors)).toHaveLength(1);

    // Two faults: the issues are still all of them, so the allErrors copy ran.
    const broken = { ...example, dcp_version: 1, agent_id: 7 };
    const first = validateSchema('v2', 'awareness_threshold', broken);
    expect(first.valid).toBe(false);
    expect(first.valid === false && first.issues.length).toBeGreaterThanOrEqual(2);
    expect(calls.filter((c) => c.allErrors)).toHaveLength(1);

    expect(validateSchema('v2', 'awareness_threshold', broken)).toEqual(first);
    expect(validateSchema('v2', 'awareness_threshold', example)).toEqual({ valid: true });
    expect(calls.filter((c) => c.allErrors)).toHaveLength(1);
    expect(calls).toHaveLength(2);
  });
});
