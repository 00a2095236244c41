// The registry's Ajv (bounded string lengths P76, the date-time fast path P77) accepts and rejects exactly
// what stock Ajv with ajv-formats does, and lists the same issues. Issue 14; P30 (lengths in code points).
// Budget: numRuns 300 per property; raise with FUZZ_RUNS=<n>.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildSignedBundle } from '../bundle/build/index.ts';
import { type JsonPath, jsonPaths } from '../bundle/test-support.ts';
import { isCommonDateTime } from '../time/date-time.ts';
import { toSchemaIssues } from './issues.ts';
import { SCHEMA_NAMES, type SchemaVersion, schemaId } from './names.ts';
import { createAjv, getSchema, type SchemaVerdict, validateSchema } from './registry.ts';
import { codePoints, useBoundedStringLength } from './string-length.ts';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 300);
const EXAMPLES = fileURLToPath(new URL('../../test-vectors/schema-examples/', import.meta.url));

type Ajv = InstanceType<typeof Ajv2020Module.default>;
type Json = Record<string, unknown>;

/** The configuration before P76/P77: Ajv's own minLength/maxLength and ajv-formats' full date-time. */
function stockAjv(allErrors: boolean): Ajv {
  const ajv = new Ajv2020Module.default({ allErrors, strict: true });
  addFormatsModule.default(ajv);
  return ajv;
}

function withSchemas(ajv: Ajv): Ajv {
  for (const version of ['v1', 'v2'] as const) {
    for (const name of SCHEMA_NAMES[version]) ajv.addSchema(getSchema(version, name) as Json);
  }
  return ajv;
}

const stock = { all: withSchemas(stockAjv(true)), first: withSchemas(stockAjv(false)) };
const ours = { first: withSchemas(createAjv(false)) };

const validator = (ajv: Ajv, version: SchemaVersion, name: string): ValidateFunction => {
  const found = ajv.getSchema(schemaId(version, name));
  if (found === undefined) throw new Error(`no schema ${version}/${name}`);
  return found;
};

/** What validateSchema answered before P76/P77: stock Ajv's verdict and issue list. */
function stockVerdict(version: SchemaVersion, name: string, value: unknown): SchemaVerdict {
  const validate = validator(stock.all, version, name);
  return validate(value)
    ? { valid: true }
    : { valid: false, issues: toSchemaIssues((validate.errors ?? []) as ErrorObject[]) };
}

/** The registry (both of its compiles) against stock Ajv, for one value and schema. */
function expectSameAsStock(version: SchemaVersion, name: string, value: unknown): void {
  expect(validateSchema(version, name, value)).toEqual(stockVerdict(version, name, value));
  expect(validator(ours.first, version, name)(value)).toBe(validator(stock.first, version, name)(value));
}

// ---- adversarial strings -------------------------------------------------------------------------

const ASTRAL = '\u{1F600}';
/** Pieces whose code units and code points differ: a pair, lone surrogates (either order), BMP text. */
const piece = fc.constantFrom(
  'a',
  'Z',
  '=',
  'é',
  '\u0000',
  ASTRAL,
  '\u{10FFFF}',
  '\uD83D',
  '\uDE00',
  '\uDE00\uD83D',
);
/** Strings of mixed pieces, mostly short, some around the 32/256 limits and around twice them. */
const mixedString = fc.oneof(
  fc.array(piece, { maxLength: 24 }).map((parts) => parts.join('')),
  fc
    .record({
      astral: fc.integer({ min: 0, max: 300 }),
      plain: fc.integer({ min: 0, max: 520 }),
      lone: fc.constantFrom('', '\uD83D', '\uDE00'),
      astralFirst: fc.boolean(),
    })
    .map(({ astral, plain, lone, astralFirst }) => {
      const a = ASTRAL.repeat(astral);
      const p = 'x'.repeat(plain);
      return astralFirst ? `${a}${lone}${p}` : `${p}${lone}${a}`;
    }),
);

const digits = (n: number) => fc.integer({ min: 0, max: 10 ** n - 1 }).map((v) => String(v).padStart(n, '0'));
const inRange = (min: number, max: number, ...likely: string[]) =>
  fc.oneof(
    fc.constantFrom(...likely),
    fc.integer({ min, max }).map((v) => String(v).padStart(2, '0')),
  );
/** Mostly a field the full check accepts, sometimes one at or past its limits. */
const field = (valid: fc.Arbitrary<string>, edge: fc.Arbitrary<string>) =>
  fc.oneof({ weight: 9, arbitrary: valid }, { weight: 1, arbitrary: edge });
/**
 * RFC 3339 look-alikes: valid ones (leap days, 23:59:59, long fractions, offsets) with now and then one
 * or two fields at or past their limits, and the separators and zones ajv-formats accepts besides.
 */
const dateTimeLike = fc
  .record({
    year: fc.oneof(fc.constantFrom('0000', '1900', '2000', '2023', '2024', '2100'), digits(4)),
    month: field(inRange(1, 12, '02'), fc.oneof(fc.constantFrom('00', '13'), digits(2))),
    day: field(inRange(1, 28, '29', '30', '31'), fc.oneof(fc.constantFrom('00', '32'), digits(2))),
    sep: field(fc.constant('T'), fc.constantFrom('t', ' ', '\n', '\u00A0', '\u2028', 'x', 'TT', '')),
    hour: field(inRange(0, 23, '23', '00'), fc.oneof(fc.constantFrom('24', '25'), digits(2))),
    minute: field(inRange(0, 59, '59', '00'), fc.oneof(fc.constantFrom('60', '61'), digits(2))),
    second: field(inRange(0, 59, '59'), fc.oneof(fc.constantFrom('60', '61', '5'), digits(2))),
    fraction: field(
      fc.oneof(
        fc.constant(''),
        fc.integer({ min: 1, max: 9 }).chain((n) => digits(n).map((d) => `.${d}`)),
      ),
      fc.oneof(
        fc.constant('.'),
        fc.integer({ min: 1, max: 25 }).map((n) => `.${'9'.repeat(n)}`),
        fc.integer({ min: 1, max: 25 }).map((n) => `.${'0'.repeat(n - 1)}1`),
      ),
    ),
    zone: field(
      fc.oneof(
        fc.constant('Z'),
        fc
          .tuple(fc.constantFrom('+', '-'), inRange(0, 23, '23', '01'), inRange(0, 59, '59', '00'))
          .map(([sign, h, m]) => `${sign}${h}:${m}`),
      ),
      fc.oneof(
        fc.constantFrom(
          'z',
          '',
          '+24:00',
          '+05:60',
          '+0530',
          '+05',
          '-1',
          '+05:30:00',
          'Z\n',
          'ZZ',
          ' Z',
          '+05:3',
        ),
        fc.constantFrom('+٠٥:٠٠'),
        fc
          .tuple(
            fc.constantFrom('+', '-'),
            fc.oneof(fc.constantFrom('00', '23', '24'), digits(2)),
            fc.oneof(fc.constantFrom('00', '59', '60'), digits(2)),
          )
          .map(([sign, h, m]) => `${sign}${h}:${m}`),
      ),
    ),
    tail: field(fc.constant(''), fc.constantFrom('\n', ' ', 'x')),
  })
  .map(
    (d) =>
      `${d.year}-${d.month}-${d.day}${d.sep}${d.hour}:${d.minute}:${d.second}${d.fraction}${d.zone}${d.tail}`,
  );

const HEX = fc.constantFrom(...'0123456789abcdefABCDEF'.split(''));
/** Hex look-alikes: right and wrong lengths, upper case, line ends after the last digit. */
const hexLike = fc
  .record({
    prefix: fc.constantFrom('', 'sha256:', 'sha3-256:', 'SHA256:', 'GENESIS', 'sha256:GENESIS'),
    hex: fc.oneof(
      fc.constantFrom(32, 64).map((n) => 'ab'.repeat(n / 2)),
      fc.array(HEX, { minLength: 30, maxLength: 66 }).map((h) => h.join('')),
    ),
    suffix: fc.constantFrom('', '', '\n', '\r\n', '\u2028', ' ', '\u0000'),
  })
  .map(({ prefix, hex, suffix }) => (prefix === 'GENESIS' ? `GENESIS${suffix}` : `${prefix}${hex}${suffix}`));

const adversarialString = fc.oneof(mixedString, dateTimeLike, hexLike, fc.string({ unit: 'binary' }));
const adversarialValue = fc.oneof(
  { weight: 6, arbitrary: adversarialString },
  { weight: 1, arbitrary: fc.constantFrom(null, true, 0, -1, 1.5, 2 ** 53, [], {}, ['x'], { x: 1 }) },
);

// ---- documents to mutate -------------------------------------------------------------------------

interface Seed {
  readonly version: SchemaVersion;
  readonly name: string;
  readonly value: Json;
  /** For bundles: the payload schema of each artifact, validated as well. */
  readonly payloads?: readonly (readonly [string, string])[];
}

const V2_PAYLOADS = [
  ['responsible_principal_record', 'responsible_principal_record'],
  ['responsible_principal_record', 'blinded_rpr'],
  ['agent_passport', 'agent_passport'],
  ['intent', 'intent'],
  ['policy_decision', 'policy_decision'],
] as const;

const json = (value: unknown): Json => JSON.parse(JSON.stringify(value)) as Json;
const now = new Date('2026-11-26T08:00:00.123Z');
const SEEDS: readonly Seed[] = [
  ...(
    [
      { tier: 'elevated', entries: 3 },
      { tier: 'maximum', entries: 2, shape: 'sdk' },
      { tier: 'routine', entries: 2, classicalOnly: true },
    ] as const
  ).map(
    (options): Seed => ({
      version: 'v2',
      name: 'signed_bundle',
      value: json(buildSignedBundle({ ...options, now }).signed_bundle),
      payloads: V2_PAYLOADS,
    }),
  ),
  {
    version: 'v1',
    name: 'signed_bundle',
    value: json(buildSignedBundle({ version: '1.0', entries: 2, now }).signed_bundle),
  },
  ...[
    'advisory_declaration',
    'interaction_record',
    'jurisprudence_bundle',
    'principal_mirror',
    'rights_declaration',
    'succession_record',
    'vitality_report',
  ].map(
    (name): Seed => ({
      version: 'v2',
      name,
      value: JSON.parse(readFileSync(path.join(EXAMPLES, `${name}.json`), 'utf8')) as Json,
    }),
  ),
];

type Path = JsonPath;

/** Every path of a string value: where lengths, patterns and formats apply. */
const stringPaths = (value: unknown): Path[] =>
  jsonPaths(value).filter(
    (p) => typeof p.reduce<unknown>((node, k) => (node as Json)[k], value) === 'string',
  );

function setAt(root: Json, at: Path, replacement: unknown): Json {
  const copy = structuredClone(root);
  if (at.length === 0) return copy;
  let node = copy as Record<string | number, unknown>;
  for (const step of at.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  const last = at[at.length - 1]!;
  if (replacement === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = replacement;
  return copy;
}

function expectSeedSameAsStock(seed: Seed, value: Json): void {
  expectSameAsStock(seed.version, seed.name, value);
  const bundle = value['bundle'] as Json | undefined;
  for (const [field, schema] of seed.payloads ?? []) {
    const payload = (bundle?.[field] as Json | undefined)?.['payload'];
    if (payload !== undefined) expectSameAsStock(seed.version, schema, payload);
  }
}

const SEED_PATHS = SEEDS.map((seed) => ({ all: jsonPaths(seed.value), strings: stringPaths(seed.value) }));

describe('schema validation: the registry decides as stock Ajv does (P76, P77)', () => {
  it('the unmutated seeds: valid, and alike', () => {
    for (const seed of SEEDS) {
      expect(validateSchema(seed.version, seed.name, seed.value)).toEqual({ valid: true });
      expectSeedSameAsStock(seed, seed.value);
    }
  });

  it('a string anywhere in a bundle or record replaced by an adversarial one', () => {
    fc.assert(
      fc.property(fc.nat(SEEDS.length - 1), fc.nat(), adversarialValue, (s, p, replacement) => {
        const seed = SEEDS[s]!;
        const strings = SEED_PATHS[s]!.strings;
        expectSeedSameAsStock(seed, setAt(seed.value, strings[p % strings.length]!, replacement));
      }),
      { numRuns: RUNS },
    );
  });

  it('several nodes replaced or deleted at once (many issues, their order and folding)', () => {
    const edit = fc.record({ at: fc.nat(), value: fc.option(adversarialValue, { nil: undefined, freq: 4 }) });
    fc.assert(
      fc.property(fc.nat(SEEDS.length - 1), fc.array(edit, { minLength: 2, maxLength: 6 }), (s, edits) => {
        const seed = SEEDS[s]!;
        const all = SEED_PATHS[s]!.all;
        let value = seed.value;
        for (const e of edits) {
          const at = all[e.at % all.length]!;
          // A path an earlier deletion removed is skipped rather than recreated.
          if (at.length > 0 && jsonPaths(value).some((q) => q.join('\u0000') === at.join('\u0000'))) {
            value = setAt(value, at, e.value);
          }
        }
        expectSeedSameAsStock(seed, value);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('minLength / maxLength: code points, counted only when code units cannot decide (P76)', () => {
  const LIMITS = [0, 1, 2, 3, 6, 8, 32, 256];
  const stockLength = stockAjv(true);
  const oursLength = createAjv(true);
  const both = (schema: Json) => [stockLength.compile(schema), oursLength.compile(schema)] as const;
  const schemas = LIMITS.flatMap((k) => [
    both({ type: 'string', minLength: k }),
    both({ type: 'string', maxLength: k }),
    both({ type: 'string', minLength: k, maxLength: 2 * k, pattern: '^[^b]*$' }),
  ]);

  it('every limit, at and around each boundary, with pairs and lone surrogates', () => {
    fc.assert(
      fc.property(mixedString, (value) => {
        for (const [a, b] of schemas) {
          expect(b(value)).toBe(a(value));
          expect(b.errors ?? null).toEqual(a.errors ?? null);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('code points are those of the string iterator (= Ajv ucs2length)', () => {
    fc.assert(
      fc.property(fc.oneof(mixedString, fc.string({ unit: 'binary' })), (value) => {
        expect(codePoints(value)).toBe([...value].length);
      }),
      { numRuns: RUNS },
    );
  });

  it('a 4 KB base64 signature is not walked; a short string with pairs is counted', () => {
    const ajv = new Ajv2020Module.default({ allErrors: true, strict: true });
    let counted = 0;
    useBoundedStringLength(ajv, (value) => {
      counted += 1;
      return codePoints(value);
    });
    const validate = ajv.compile({ type: 'string', minLength: 8, maxLength: 5000 });
    expect(validate('QUJD'.repeat(1024))).toBe(true);
    expect(validate('QUJD'.repeat(3000))).toBe(false);
    expect(validate('abc')).toBe(false);
    expect(counted).toBe(0);
    // 8 code units, 4 characters: only counting tells.
    expect(validate(ASTRAL.repeat(4))).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({
      keyword: 'minLength',
      params: { limit: 8 },
      message: 'must NOT have fewer than 8 characters',
    });
    expect(counted).toBe(1);
  });
});

describe('date-time: the fast path accepts only what the full check accepts (P77)', () => {
  const full = stockAjv(false).formats['date-time'] as { validate: (value: string) => boolean };
  const stockFormat = stockAjv(true).compile({ type: 'string', format: 'date-time' });
  const oursFormat = createAjv(true).compile({ type: 'string', format: 'date-time' });

  it('on RFC 3339 look-alikes: same verdict, and the fast path never accepts what the full check rejects', () => {
    fc.assert(
      fc.property(fc.oneof(dateTimeLike, fc.string()), (value) => {
        if (isCommonDateTime(value)) expect(full.validate(value)).toBe(true);
        expect(oursFormat(value)).toBe(stockFormat(value));
        expect(oursFormat.errors ?? null).toEqual(stockFormat.errors ?? null);
      }),
      { numRuns: RUNS * 10 },
    );
  });

  it.each([
    ['2026-11-26T08:30:00Z', true, true],
    ['2026-11-26T08:30:00.123456789+05:30', true, true],
    ['2024-02-29T00:00:00Z', true, true],
    ['2000-02-29T00:00:00Z', true, true],
    ['1900-02-29T00:00:00Z', false, false],
    ['2023-04-31T00:00:00Z', false, false],
    // 59.999… with enough nines is 60 as a number: ajv-formats then demands a leap second.
    ['2026-11-26T08:30:59.99999999999999999Z', false, false],
    ['2016-12-31T23:59:59.99999999999999999Z', false, true],
    ['2016-12-31T23:59:60Z', false, true],
    ['2016-12-31T23:59:60+01:00', false, false],
    ['2017-01-01T00:59:60+01:00', false, true],
    ['2026-11-26t08:30:00z', false, true],
    ['2026-11-26 08:30:00Z', false, true],
    ['2026-11-26T08:30:00+0530', false, true],
    ['2026-11-26T08:30:00+05', false, true],
    ['2026-11-26T08:30:00+24:00', false, false],
    ['2026-11-26T08:30:00Z\n', false, false],
    ['2026-11-26T08:30:00', false, false],
  ])('%j: fast path %s, valid %s', (value, fast, valid) => {
    expect(isCommonDateTime(value)).toBe(fast);
    expect(full.validate(value)).toBe(valid);
    expect(oursFormat(value)).toBe(valid);
  });
});

// ---- every fixture against every schema (P110) -----------------------------------------------------

const CORPUS_BASES = fileURLToPath(new URL('../../test-vectors/bundle-corpus/bases/', import.meta.url));

/** Each stored example and corpus bundle, with its bundle, artifact payloads and audit entries. */
function fixtureValues(): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const file of readdirSync(EXAMPLES).filter((f) => f.endsWith('.json'))) {
    out.push([`example ${file}`, JSON.parse(readFileSync(path.join(EXAMPLES, file), 'utf8'))]);
  }
  for (const file of readdirSync(CORPUS_BASES).filter((f) => f.endsWith('.json'))) {
    const signed = JSON.parse(readFileSync(path.join(CORPUS_BASES, file), 'utf8')) as Json;
    out.push([`corpus ${file}`, signed]);
    const bundle = signed['bundle'] as Json;
    out.push([`corpus ${file} bundle`, bundle]);
    for (const [key, part] of Object.entries(bundle)) {
      if (Array.isArray(part)) {
        for (const [i, item] of part.entries()) out.push([`corpus ${file} ${key}[${i}]`, item]);
      } else if (part !== null && typeof part === 'object') {
        out.push([`corpus ${file} ${key}`, part]);
        const payload = (part as Json)['payload'];
        if (payload !== undefined) out.push([`corpus ${file} ${key}.payload`, payload]);
      }
    }
  }
  return out;
}

describe('the first-error copy (inlineRefs off, no optimisation, P110) agrees with stock Ajv on every fixture', () => {
  const values = fixtureValues();
  it.each(['v1', 'v2'] as const)('%s: every schema × every fixture, verdict and issues', (version) => {
    let accepted = 0;
    let rejected = 0;
    for (const name of SCHEMA_NAMES[version]) {
      for (const [, value] of values) {
        expectSameAsStock(version, name, value);
        if (!validator(stock.first, version, name)(value)) {
          rejected++;
          continue;
        }
        accepted++;
        // A value this schema accepts, one top-level member at a time removed or nulled.
        for (const key of Object.keys(value as Json)) {
          const { [key]: _gone, ...without } = value as Json;
          expectSameAsStock(version, name, without);
          expectSameAsStock(version, name, { ...(value as Json), [key]: null });
          rejected++;
        }
      }
    }
    // Both sides of the verdict are exercised, not only rejections.
    expect(accepted).toBeGreaterThan(version === 'v1' ? 0 : 20);
    expect(rejected).toBeGreaterThan(100);
  });
});
