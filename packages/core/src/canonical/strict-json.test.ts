// parseStrictJson: one reading per text or an error (duplicate names at any depth, 1e400, lone surrogates).
// Issue 12 item 2 ("one canonical form, or no verdict"), DECISIONS D2.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildSignedBundle } from '../bundle/build/index.ts';
import { makeVerifier } from '../bundle/test-support.ts';
import { canonicalizeV1, parseStrictJson, parseStrictJsonBytes } from './index.ts';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 300);

function refused(text: string): string {
  const parsed = parseStrictJson(text);
  if (parsed.ok) throw new Error(`accepted: ${text.slice(0, 80)}`);
  expect(parsed.error.code).toBe('BUNDLE_SCHEMA_INVALID');
  return parsed.error.message;
}

describe('parseStrictJson refuses text with no single dcp-jcs-v1 reading', () => {
  it.each([
    ['top level', '{"a":1,"a":2}', '$: member name "a"'],
    ['nested in an array', '{"x":[0,{"b":true,"c":null,"b":false}]}', '$.x[1]: member name "b"'],
    ['deep', '{"p":{"q":{"r":{"s":1,"t":2,"s":1}}}}', '$.p.q.r: member name "s"'],
    ['spelled with an escape', '{"agent_id":"evil","agent\\u005fid":"good"}', 'member name "agent_id"'],
    ['__proto__ twice', '{"__proto__":1,"__proto__":2}', 'member name "__proto__"'],
    ['after whitespace and escaped quotes', '{ "k\\"" : "v\\\\" , "k\\"" :1}', 'member name "k\\""'],
  ])('duplicate member names (%s)', (_name, text, expected) => {
    expect(refused(text)).toContain(expected);
  });

  it.each([
    ['1e400', '{"a":[1e400]}', '$.a[0]'],
    ['-1e400', '{"a":{"b":-1e400}}', '$.a.b'],
    ['top-level 1e999', '1e999', '$'],
  ])('numbers with no finite value (%s)', (_name, text, path) => {
    expect(refused(text)).toBe(`${path}: number has no finite value, which has no dcp-jcs-v1 form`);
  });

  it.each([
    ['a fraction read as 3', '{"a":{"n":2.9999999999999999999}}', '$.a.n', '3'],
    ['a fraction read as 3 from above', '[true,false,null,3.0000000000000000001]', '$[3]', '3'],
    ['an underflow read as 0', '{"a":[0,1e-400]}', '$.a[1]', '0'],
    ['an integer past 2^53', '{"a":9007199254740993}', '$.a', '9007199254740992'],
    ['top level', '-5e-999', '$', '0'],
  ])('numbers that are not exactly the integer they read as (%s, P150)', (_name, text, path, read) => {
    expect(refused(text)).toMatch(
      new RegExp(
        `^\\${path.replace(/[[\]]/g, '\\$&')}: number \\S+ is not exactly the integer ${read} it is read as`,
      ),
    );
  });

  it('keeps integers spelled with zeros or exponents, and every float, as their one reading', () => {
    const text =
      '[3.0,30e-1,3e0,-0.0,0e-999,1e21,1E+21,100000000000000000000,0.1,0.10000000000000001,1.5e300]';
    const parsed = parseStrictJson(text);
    expect(parsed.ok && parsed.value).toEqual(JSON.parse(text));
  });

  it.each([
    ['in a value', '{"a":"x\\ud800"}', '$.a: string contains a lone surrogate'],
    ['in a member name', '{"\\udc00":1}', 'member name contains a lone surrogate'],
    ['reversed pair', '["\\udc00\\ud800"]', '$[0]: string contains a lone surrogate'],
  ])('lone surrogates (%s)', (_name, text, expected) => {
    expect(refused(text)).toContain(expected);
  });

  it('nesting deeper than the limit, without a stack overflow', () => {
    expect(refused(`${'['.repeat(200_000)}${']'.repeat(200_000)}`)).toContain('nesting depth exceeds 128');
    // The outermost container is depth 1, as MAX_CANONICAL_DEPTH counts.
    expect(parseStrictJson('[[[[1]]]]', 3).ok).toBe(false);
    expect(parseStrictJson('[[{"a":1}]]', 3).ok).toBe(true);
  });

  it('syntax errors, empty text and invalid UTF-8', () => {
    expect(refused('{"a":1,}')).toMatch(/^invalid JSON/);
    expect(refused('  ')).toBe('JSON text is empty');
    const bad = parseStrictJsonBytes(new Uint8Array([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d]));
    expect(bad.ok ? 'accepted' : bad.error.message).toBe('JSON text is not valid UTF-8');
  });

  it('keeps what is well formed: paired surrogates, floats, the same name in sibling objects', () => {
    const parsed = parseStrictJson(
      '{"a":{"k":1},"b":{"k":"\\ud83d\\ude00"},"c":[{"k":1.5},{"k":-0}],"k":"\\"k\\":"}',
    );
    expect(parsed.ok && parsed.value).toEqual({
      a: { k: 1 },
      b: { k: '😀' },
      c: [{ k: 1.5 }, { k: -0 }],
      k: '"k":',
    });
  });
});

describe('parseStrictJson properties', () => {
  const jsonValue = fc.jsonValue({ maxDepth: 6 });

  it('reads every JSON.stringify output back as JSON.parse does', () => {
    fc.assert(
      fc.property(jsonValue, fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        const parsed = parseStrictJson(text);
        expect(parsed.ok).toBe(true);
        if (parsed.ok) expect(parsed.value).toStrictEqual(JSON.parse(text));
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses a repeated member name wherever it is inserted', () => {
    const objectWithMember = fc
      .dictionary(fc.string(), jsonValue, { minKeys: 1, maxKeys: 5 })
      .chain((record) => fc.tuple(fc.constant(record), fc.constantFrom(...Object.keys(record)), jsonValue));
    fc.assert(
      fc.property(
        objectWithMember,
        fc.array(fc.string(), { maxLength: 4 }),
        ([record, name, extra], outer) => {
          // The copy of `name` goes first: a first-wins parser would read `extra`, JSON.parse the real value.
          const inner = `{${JSON.stringify(name)}:${JSON.stringify(extra)},${JSON.stringify(record).slice(1)}`;
          let text = inner;
          for (const key of outer) text = `{${JSON.stringify(key)}:[${text}]}`;
          const parsed = parseStrictJson(text);
          expect(parsed.ok).toBe(false);
          if (!parsed.ok) expect(parsed.error.message).toContain(`member name ${JSON.stringify(name)}`);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('a signed bundle with a fake agent_id before the real one', () => {
  it('verifies after JSON.parse, and parseStrictJson refuses it', () => {
    const built = buildSignedBundle({ tier: 'routine', entries: 2 });
    const text = JSON.stringify({ signed_bundle: built.signed_bundle });
    const forged = text.replace('"agent_id":', '"agent_id":"agent-evil-0000","agent_id":');
    expect(forged).not.toBe(text);
    const verifier = makeVerifier({ clock: () => new Date() });
    // This is the attack: the permissive parse keeps the last (real) value and the signature holds.
    expect(verifier.verify(JSON.parse(forged)).verified).toBe(true);
    const strict = parseStrictJson(forged);
    expect(strict.ok ? 'accepted' : strict.error.message).toContain('member name "agent_id" appears twice');
    const original = parseStrictJson(text);
    expect(original.ok && canonicalizeV1(original.value)).toEqual(canonicalizeV1(JSON.parse(text)));
  });
});
