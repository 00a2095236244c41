// The 48 published schema files: present, parseable, correctly identified and compilable under Ajv strict mode.
// PROTOCOL §10 (9 V1 + 39 V2 files, draft 2020-12), our $id base URI.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { getSchema, SCHEMA_NAMES, type SchemaVersion } from './index.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SCHEMA_DIR = path.join(ROOT, 'schemas');
const BASE = 'https://schemas.signed-bundles.org';
const VERSIONS: readonly SchemaVersion[] = ['v1', 'v2'];
const ALL = VERSIONS.flatMap((version) => SCHEMA_NAMES[version].map((name) => [version, name] as const));

function readDocument(version: SchemaVersion, name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(SCHEMA_DIR, version, `${name}.schema.json`), 'utf8')) as Record<
    string,
    unknown
  >;
}

/** Every `$ref` string anywhere in a schema document. */
function refsOf(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const child of node) refsOf(child, out);
  else if (node !== null && typeof node === 'object') {
    for (const [key, child] of Object.entries(node)) {
      if (key === '$ref' && typeof child === 'string') out.push(child);
      else refsOf(child, out);
    }
  }
  return out;
}

describe('schema files', () => {
  it('lists 9 V1 and 39 V2 schemas, and the folders hold exactly those files', () => {
    expect(SCHEMA_NAMES.v1).toHaveLength(9);
    expect(SCHEMA_NAMES.v2).toHaveLength(39);
    for (const version of VERSIONS) {
      const files = readdirSync(path.join(SCHEMA_DIR, version)).sort();
      expect(files).toEqual(SCHEMA_NAMES[version].map((n) => `${n}.schema.json`).sort());
    }
  });

  it.each(ALL)('%s/%s parses, is draft 2020-12 and carries its own $id', (version, name) => {
    const document = readDocument(version, name);
    expect(document['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(document['$id']).toBe(`${BASE}/${version}/${name}.schema.json`);
    expect(typeof document['title']).toBe('string');
    // The registry serves the same document.
    expect(getSchema(version, name)).toEqual(document);
  });

  it('resolves every cross-file $ref to one of our own $ids (or a local #/$defs pointer)', () => {
    const ids = new Set(ALL.map(([v, n]) => `${BASE}/${v}/${n}.schema.json`));
    for (const [version, name] of ALL) {
      const document = readDocument(version, name);
      for (const ref of refsOf(document)) {
        const [target = '', fragment] = ref.split('#');
        if (target === '') {
          expect(fragment, `${version}/${name}: ${ref}`).toMatch(/^\/\$defs\/\w+$/);
          continue;
        }
        expect(ids.has(target), `${version}/${name}: ${ref}`).toBe(true);
        // V1 schemas only reference V1 files and V2 only V2.
        expect(target.startsWith(`${BASE}/${version}/`), `${version}/${name}: ${ref}`).toBe(true);
      }
    }
  });

  it('validates every schema against the draft 2020-12 meta-schema (the registry skips it: P115)', () => {
    const ajv = new Ajv2020Module.default({ allErrors: true, strict: true });
    addFormatsModule.default(ajv);
    for (const [version, name] of ALL) {
      const valid = ajv.validateSchema(readDocument(version, name));
      expect(valid ? [] : ajv.errors, `${version}/${name}`).toEqual([]);
    }
  });

  it('compiles all 48 schemas under Ajv strict mode (no unknown keywords, formats or loose types)', () => {
    const ajv = new Ajv2020Module.default({ allErrors: true, strict: true });
    addFormatsModule.default(ajv);
    for (const [version, name] of ALL) ajv.addSchema(readDocument(version, name));
    for (const [version, name] of ALL) {
      expect(
        () => ajv.getSchema(`${BASE}/${version}/${name}.schema.json`),
        `${version}/${name}`,
      ).not.toThrow();
      expect(ajv.getSchema(`${BASE}/${version}/${name}.schema.json`)).toBeTypeOf('function');
    }
  });

  it('closes every V2 record and artifact at the top level (unknown members are rejected)', () => {
    for (const [version, name] of ALL) {
      const document = readDocument(version, name);
      // pq_checkpoint is a oneOf of two closed shapes (D6).
      if (name === 'pq_checkpoint') {
        const defs = document['$defs'] as Record<string, Record<string, unknown>>;
        expect(defs['sdk_checkpoint']?.['additionalProperties']).toBe(false);
        expect(defs['spec_checkpoint']?.['additionalProperties']).toBe(false);
        continue;
      }
      expect(document['additionalProperties'], `${version}/${name}`).toBe(false);
    }
  });
});
