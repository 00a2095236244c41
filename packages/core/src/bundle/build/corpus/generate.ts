// Generates the bundle corpus from the builder (deterministic: seeded keys, fixed clock, labelled
// randomness, deterministic ML-DSA) and reads it back. Files: seeds.json, index.json, bases/*.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { errorCode } from '../../../errors.ts';
import { PROFILES } from '../../../profile.ts';
import type { JsonObject } from '../types.ts';
import { CASES, type CaseSpec, caseProfile } from './cases.ts';
import {
  BASES,
  type BaseName,
  baseProfile,
  buildBase,
  CORPUS_DIR,
  CORPUS_VERIFY_AT,
  tamperKit,
} from './fixture-context.ts';
import { applyPatch, diffJson } from './json-patch.ts';
import type { CorpusExpectation, CorpusIndex, ExpectationSpec, StoredCase } from './model.ts';

export interface GeneratedCorpus {
  readonly index: CorpusIndex;
  readonly bases: Readonly<Record<string, JsonObject>>;
}

function renderExpectation(
  spec: ExpectationSpec,
  profile: StoredCase['verifier']['profile'],
): CorpusExpectation {
  return {
    verified: spec.verified,
    ...(spec.tier !== undefined ? { resolved_tier: spec.tier } : {}),
    failed_checks: [...(spec.fails ?? [])].sort(),
    errors: (spec.errors ?? []).map(([check, name]) => ({ check, code: errorCode(name, PROFILES[profile]) })),
    ...(spec.checks !== undefined ? { checks: spec.checks } : {}),
    ...(spec.warnings !== undefined ? { warnings: spec.warnings } : {}),
  };
}

function generateCase(spec: CaseSpec, bases: Readonly<Record<string, JsonObject>>): StoredCase {
  const kit = tamperKit(baseProfile(spec.base));
  const base = bases[spec.base] as JsonObject;
  const signed = spec.build ? buildBase(spec.base, spec.build(kit)).signed_bundle : structuredClone(base);
  spec.tamper?.(signed, kit);
  const profile = caseProfile(spec);
  return {
    id: spec.id,
    description: spec.description,
    base: spec.base,
    patch: diffJson(base, signed),
    ...(spec.request !== undefined ? { request: spec.request } : {}),
    verifier: { ...spec.verifier, profile, now: CORPUS_VERIFY_AT },
    expect: renderExpectation(spec.expect, profile),
  };
}

export function generateCorpus(): GeneratedCorpus {
  const bases: Record<string, JsonObject> = {};
  for (const name of Object.keys(BASES) as BaseName[]) bases[name] = buildBase(name).signed_bundle;
  const ids = new Set<string>();
  const cases = CASES.map((spec) => {
    if (ids.has(spec.id)) throw new Error(`duplicate corpus case id ${spec.id}`);
    ids.add(spec.id);
    return generateCase(spec, bases);
  });
  const index: CorpusIndex = {
    _comment:
      'Bundle corpus: each case = bases/<base>.json with `patch` (RFC 6902) applied, sent as /verify request ' +
      '{signed_bundle, ...request} to a verifier with `verifier` settings (clock = verifier.now); `expect` is the verdict. ' +
      'TEST-ONLY keys (seeds.json). Regenerate with UPDATE_VECTORS=1.',
    generated_by: 'packages/core/src/bundle/build/corpus/generate.ts',
    bases: Object.fromEntries(
      (Object.keys(BASES) as BaseName[]).map((name) => [
        name,
        { description: BASES[name].description, file: `bases/${name}.json` },
      ]),
    ),
    cases,
  };
  return { index, bases };
}

/** Serialisation used for every corpus file (stable, diff-friendly). */
export function corpusFileText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The files of a corpus, by path relative to the corpus directory. */
export function corpusFiles(corpus: GeneratedCorpus): Map<string, string> {
  const files = new Map<string, string>([['index.json', corpusFileText(corpus.index)]]);
  for (const [name, bundle] of Object.entries(corpus.bases))
    files.set(`bases/${name}.json`, corpusFileText(bundle));
  return files;
}

export function writeCorpus(corpus: GeneratedCorpus, dir = CORPUS_DIR): void {
  mkdirSync(`${dir}bases`, { recursive: true });
  for (const [file, text] of corpusFiles(corpus)) writeFileSync(`${dir}${file}`, text);
}

/** A stored case made ready to run: the /verify request and its verifier settings. */
export interface MaterializedCase {
  readonly stored: StoredCase;
  readonly request: Record<string, unknown>;
}

export function readCorpus(dir = CORPUS_DIR): { index: CorpusIndex; cases: MaterializedCase[] } {
  const index = JSON.parse(readFileSync(`${dir}index.json`, 'utf8')) as CorpusIndex;
  const bases = new Map<string, unknown>();
  const baseOf = (name: string) => {
    if (!bases.has(name)) bases.set(name, JSON.parse(readFileSync(`${dir}bases/${name}.json`, 'utf8')));
    return bases.get(name);
  };
  const cases = index.cases.map((stored) => ({
    stored,
    request: { signed_bundle: applyPatch(baseOf(stored.base), stored.patch), ...stored.request },
  }));
  return { index, cases };
}
