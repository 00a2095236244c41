// Loads the 48 JSON Schemas from @proto/schemas into one Ajv (draft 2020-12, strict) and validates values.
// PROTOCOL §10 (schema artifacts) with DECISIONS D5, D6, D7, D14, D15, D20, D21; never throws on bad input.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { useFastDateTime } from './date-time.ts';
import { type SchemaIssue, toSchemaIssues } from './issues.ts';
import { isSchemaFile, isSchemaVersion, SCHEMA_NAMES, type SchemaVersion, schemaId } from './names.ts';
import { useBoundedStringLength } from './string-length.ts';

export type SchemaVerdict =
  | { readonly valid: true }
  | { readonly valid: false; readonly issues: readonly SchemaIssue[] };

type Ajv = InstanceType<typeof Ajv2020Module.default>;

/**
 * A schema compiled twice: `check` stops at the first error, `explain` collects them all. Validity
 * does not depend on allErrors, so a value `check` accepts is valid without walking the rest; only
 * a value it rejects (or cannot read) is walked again for the full list of issues. A valid V2 bundle
 * thus skips the errors collected for the `oneOf` branch each checkpoint does not take, and the
 * second pass over their multi-KB signatures.
 */
interface Compiled {
  readonly check: ValidateFunction;
  /**
   * Compiled on the first rejection (P110): Ajv's compile is most of a thread's first-use cost, and a
   * thread that only sees valid values never needs the allErrors copy.
   */
  explain: ValidateFunction | undefined;
  /** The `$id` (with `#/$defs/<name>`) both copies are compiled from. */
  readonly ref: string;
  readonly reg: Registry;
}

interface Registry {
  /** allErrors: the validators that name every issue. */
  readonly ajv: Ajv;
  /** The same schemas without allErrors: the fast yes/no. */
  readonly firstError: Ajv;
  /** `v2/key_entry` → the parsed (frozen) schema document. */
  readonly documents: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  /** Compiled validators by `v2/name` or `v2/name#def`, filled on first use. */
  readonly validators: Map<string, Compiled>;
}

const VALID: SchemaVerdict = Object.freeze({ valid: true });

let registry: Registry | undefined;
let loadFailure: string | undefined;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Locates a data file of the workspace package @proto/schemas through its exports map ("./*"). */
function locate(specifier: string): URL {
  if (typeof import.meta.resolve === 'function') return new URL(import.meta.resolve(specifier));
  // Vitest's module runner has no import.meta.resolve; Node's CommonJS resolver reads the same exports map.
  return pathToFileURL(createRequire(import.meta.url).resolve(specifier));
}

function readDocument(version: SchemaVersion, name: string): Record<string, unknown> {
  const url = locate(`@proto/schemas/${version}/${name}.schema.json`);
  const document = JSON.parse(readFileSync(url, 'utf8')) as Record<string, unknown>;
  if (document['$id'] !== schemaId(version, name)) {
    throw new Error(`${version}/${name}.schema.json has $id ${String(document['$id'])}`);
  }
  return deepFreeze(document);
}

/**
 * Draft 2020-12, strict, ajv-formats' full formats. String lengths stay in code points (P30) but are
 * counted only when the length in code units cannot decide (P76), and `date-time` checks the common
 * shape before ajv-formats' parse (P77): both accept and reject exactly what stock Ajv does. `allErrors`
 * false gives the copy whose verdict alone is read.
 */
export function createAjv(allErrors: boolean): Ajv {
  // The yes/no copy's error objects are never read, so it is compiled the cheapest way (P110): no
  // optimisation pass over the generated code and each `$ref` as its own function instead of inlined.
  // Neither changes what a schema accepts; the allErrors copy, whose errors become issues, stays stock.
  // validateSchema off (P115): checking each document against the 2020-12 meta-schema compiles that
  // meta-schema in every Ajv, most of a thread's first verify; the documents are fixed files that
  // files.test.ts checks against it, and strict mode still rejects unknown keywords when compiling.
  const ajv = new Ajv2020Module.default(
    allErrors
      ? { allErrors, strict: true, validateSchema: false }
      : { allErrors, strict: true, validateSchema: false, inlineRefs: false, code: { optimize: false } },
  );
  addFormatsModule.default(ajv);
  useFastDateTime(ajv);
  useBoundedStringLength(ajv);
  return ajv;
}

/** Adds every schema once (cheap); each one is compiled only when first used. */
function load(): Registry | undefined {
  if (registry !== undefined || loadFailure !== undefined) return registry;
  try {
    const ajv = createAjv(true);
    const firstError = createAjv(false);
    const documents = new Map<string, Readonly<Record<string, unknown>>>();
    for (const version of ['v1', 'v2'] as const) {
      for (const name of SCHEMA_NAMES[version]) {
        const document = readDocument(version, name);
        ajv.addSchema(document);
        firstError.addSchema(document);
        documents.set(`${version}/${name}`, document);
      }
    }
    registry = { ajv, firstError, documents, validators: new Map() };
  } catch (error) {
    loadFailure = messageOf(error);
  }
  return registry;
}

interface Target {
  /** Cache key: `v2/revocation_record#revocation_list`. */
  readonly key: string;
  /** Document key: `v2/revocation_record`. */
  readonly file: string;
  readonly version: SchemaVersion;
  readonly fileName: string;
  /** Name of a `$defs` member (`revocation_record#revocation_list`), if any. */
  readonly definition: string | undefined;
}

function target(version: unknown, name: unknown): Target | undefined {
  if (!isSchemaVersion(version) || typeof name !== 'string') return undefined;
  const hash = name.indexOf('#');
  const file = hash < 0 ? name : name.slice(0, hash);
  const definition = hash < 0 ? undefined : name.slice(hash + 1);
  if (!isSchemaFile(version, file)) return undefined;
  return { key: `${version}/${name}`, file: `${version}/${file}`, version, fileName: file, definition };
}

function definitionOf(reg: Registry, t: Target): Readonly<Record<string, unknown>> | undefined {
  const document = reg.documents.get(t.file);
  if (document === undefined || t.definition === undefined) return document;
  const defs = document['$defs'] as Record<string, Readonly<Record<string, unknown>>> | undefined;
  return defs !== undefined && Object.hasOwn(defs, t.definition) ? defs[t.definition] : undefined;
}

/** Names for messages, without calling a caller-supplied toString. */
const label = (x: unknown): string => (typeof x === 'string' ? x : `<${typeof x}>`);

const failure = (message: string): SchemaVerdict => ({ valid: false, issues: [{ path: '', message }] });

/**
 * Validates `value` against `<version>/<name>.schema.json`. `name` may also address a `$defs` member as
 * `<name>#<def>` (`revocation_record#revocation_list`, `jurisdiction_attestation#issued_attestation`).
 * Never throws: an unknown name or an unloadable schema is reported as an issue at path `''`.
 */
export function validateSchema(version: SchemaVersion, name: string, value: unknown): SchemaVerdict {
  const reg = load();
  // Hot path: a validator is cached only under a key that was checked when it was compiled.
  const cached =
    typeof version === 'string' && typeof name === 'string'
      ? reg?.validators.get(`${version}/${name}`)
      : undefined;
  if (cached !== undefined) return run(cached, version, name, value);
  const t = target(version, name);
  if (t === undefined || (reg !== undefined && definitionOf(reg, t) === undefined)) {
    return failure(`unknown schema ${label(version)}/${label(name)}`);
  }
  if (reg === undefined) return failure(`schemas unavailable: ${loadFailure ?? 'not loaded'}`);
  let validate: Compiled | undefined;
  try {
    const id = schemaId(t.version, t.fileName);
    const ref = t.definition === undefined ? id : `${id}#/$defs/${t.definition}`;
    const check = reg.firstError.getSchema(ref);
    if (check === undefined) return failure(`unknown schema ${version}/${name}`);
    validate = { check, explain: undefined, ref, reg };
    reg.validators.set(t.key, validate);
  } catch (error) {
    return failure(`schema ${version}/${name} could not be compiled: ${messageOf(error)}`);
  }
  return run(validate, version, name, value);
}

/**
 * P228: a rejected value with more values than this (members, items and the value itself) is not walked again to
 * name every issue: the allErrors pass makes an error object per wrong item, so 400,000 wrong items in an 800 KB
 * body cost a thread 4–5 s (a valid 950 KB bundle 0.12 s), and callers name eight issues at most. Such a value
 * gets the yes/no pass's first issue and a note that the rest are not listed (the verdict is the yes/no pass's
 * either way). A maximum-tier bundle near the service's 1 MiB limit holds about 6,000 values, a routine one up to
 * about 20,000: a large bundle that fails its schema may name one issue where it named eight.
 */
const EXPLAIN_MAX_VALUES = 10_000;

/** Whether `value` holds more than `max` values; iterative, and never counts past the bound. */
function holdsMoreValues(value: unknown, max: number): boolean {
  const pending: object[] = [];
  let count = 1;
  if (value !== null && typeof value === 'object') pending.push(value);
  while (pending.length > 0) {
    const node = pending.pop() as Record<string, unknown>;
    const children = Array.isArray(node) ? (node as unknown[]) : Object.values(node);
    count += children.length;
    if (count > max) return true;
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (child !== null && typeof child === 'object') pending.push(child);
    }
  }
  return false;
}

function run(validate: Compiled, version: SchemaVersion, name: string, value: unknown): SchemaVerdict {
  try {
    if (validate.check(value)) return VALID;
    const first = (validate.check.errors ?? []) as ErrorObject[];
    if (first.length > 0 && holdsMoreValues(value, EXPLAIN_MAX_VALUES)) {
      return {
        valid: false,
        issues: [
          ...toSchemaIssues(first),
          {
            path: '',
            message: `holds more than ${EXPLAIN_MAX_VALUES} values: issues after the first are not listed`,
          },
        ],
      };
    }
  } catch {
    // The full pass below reads the value again and reports what it throws.
  }
  let explain = validate.explain;
  if (explain === undefined) {
    try {
      explain = validate.reg.ajv.getSchema(validate.ref);
    } catch (error) {
      return failure(`schema ${version}/${name} could not be compiled: ${messageOf(error)}`);
    }
    if (explain === undefined) return failure(`unknown schema ${version}/${name}`);
    validate.explain = explain;
  }
  try {
    if (explain(value)) return VALID;
    return { valid: false, issues: toSchemaIssues((explain.errors ?? []) as ErrorObject[]) };
  } catch (error) {
    // Only exotic values get here (e.g. a Proxy whose traps throw).
    return failure(`schema ${version}/${name} could not be applied: ${messageOf(error)}`);
  }
}

/** The schema document as published (frozen), e.g. for OpenAPI docs; `<name>#<def>` gives a `$defs` member. */
export function getSchema(version: SchemaVersion, name: string): object | undefined {
  const t = target(version, name);
  const reg = load();
  return t === undefined || reg === undefined ? undefined : definitionOf(reg, t);
}
