// Members of a V2 `signed_bundle` / `bundle` that no signature or manifest hash covers: set aside before
// analysis so they can change neither the verdict nor a cache key, and named in a warning. Issue 12 item 2.
import { isRecord, type JsonRecord } from './json.ts';
import type { UncoveredMembers } from './types.ts';

/** `signed_bundle` members the V2 checks read: `bundle` (through the manifest) and `signature`. */
const SIGNED_BUNDLE_MEMBERS: ReadonlySet<string> = new Set(['bundle', 'signature']);

/**
 * `bundle` members the V2 schema names; each is bound to the signature through a manifest field
 * (version, rpr_hash, passport_hash, intent_hash, policy_hash, audit roots, checkpoint hashes). The console's
 * shared/covered.js repeats the list (browser-modules.test.ts compares them, P247).
 */
export const V2_BUNDLE_MEMBERS: ReadonlySet<string> = new Set([
  'dcp_bundle_version',
  'manifest',
  'responsible_principal_record',
  'agent_passport',
  'intent',
  'policy_decision',
  'audit_entries',
  'pq_checkpoints',
]);

export interface CoveredView {
  /** The signed bundle without its uncovered members (the same object when it has none). */
  readonly covered: unknown;
  /**
   * The members set aside, as an analysis keeps them (P269): the first `UNCOVERED_WARNINGS_NAMED` paths in sorted
   * order (e.g. `signed_bundle.bundle.note`) and the count; undefined when there are none.
   */
  readonly members: UncoveredMembers | undefined;
}

function splitRecord(
  record: JsonRecord,
  known: ReadonlySet<string>,
): { kept: JsonRecord; dropped: string[] } {
  const dropped = Object.keys(record).filter((key) => !known.has(key));
  if (dropped.length === 0) return { kept: record, dropped };
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(record)) if (known.has(key)) kept[key] = record[key];
  return { kept, dropped };
}

/**
 * The smallest paths in sorted order, at most `limit` of them, and how many were offered: what a full sort
 * then a slice gave (P269), without sorting every path (P284). A sender chooses the number of members, so
 * the cost is one comparison with the largest kept path for most of them, and a short insertion for the few
 * smaller ones (`<` orders strings by UTF-16 code units, as `Array.prototype.sort` does).
 */
class SmallestPaths {
  private readonly kept: string[] = [];
  private readonly limit: number;
  private count = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  add(path: string): void {
    this.count++;
    const kept = this.kept;
    if (kept.length === this.limit) {
      if (!(path < (kept[kept.length - 1] as string))) return;
      kept.pop();
    }
    let at = kept.length;
    while (at > 0 && path < (kept[at - 1] as string)) at--;
    kept.splice(at, 0, path);
  }

  members(): UncoveredMembers | undefined {
    if (this.count === 0) return undefined;
    return Object.freeze({ named: Object.freeze([...this.kept]), count: this.count });
  }
}

/**
 * Splits a V2 signed bundle into what its signature covers and the first names of everything else.
 * Non-objects are returned as they are (the schema check reports them).
 */
export function splitUncoveredV2(signed: unknown): CoveredView {
  if (!isRecord(signed)) return { covered: signed, members: undefined };
  const paths = new SmallestPaths(UNCOVERED_WARNINGS_NAMED);
  const outer = splitRecord(signed, SIGNED_BUNDLE_MEMBERS);
  for (const key of outer.dropped) paths.add(`signed_bundle${memberPath(key)}`);
  const bundle = outer.kept['bundle'];
  let covered = outer.kept;
  if (isRecord(bundle)) {
    const inner = splitRecord(bundle, V2_BUNDLE_MEMBERS);
    if (inner.dropped.length > 0) {
      covered = { ...outer.kept, bundle: inner.kept };
      for (const key of inner.dropped) paths.add(`signed_bundle.bundle${memberPath(key)}`);
    }
  }
  return { covered, members: paths.members() };
}

function memberPath(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** The warning text for one set-aside member (rendered by finalize, so a cache hit can name its own). */
export function uncoveredMemberWarning(path: string): string {
  return `${path} is covered by no signature; it was ignored and does not affect the verdict`;
}

/**
 * Members named one warning each before the rest are counted in one: the sender adds them at no cost (a
 * few bytes each, outside every signature), and a warning each made a 1 MB body a 10 MB answer (P149).
 */
export const UNCOVERED_WARNINGS_NAMED = 10;

/**
 * What an analysis keeps of the set-aside members (sorted paths), frozen: the paths the warnings name and the
 * count (P269). `undefined` when there are none.
 */
export function keptUncoveredMembers(paths: readonly string[]): UncoveredMembers | undefined {
  if (paths.length === 0) return undefined;
  return Object.freeze({
    named: Object.freeze(paths.slice(0, UNCOVERED_WARNINGS_NAMED)),
    count: paths.length,
  });
}

/**
 * The warnings of the set-aside members (sorted paths, or what an analysis kept of them): the first few named,
 * the rest counted.
 */
export function uncoveredMemberWarnings(members: readonly string[] | UncoveredMembers): string[] {
  const { named: paths, count } = isPathList(members) ? { named: members, count: members.length } : members;
  const named = paths.slice(0, UNCOVERED_WARNINGS_NAMED).map(uncoveredMemberWarning);
  const more = count - named.length;
  if (more > 0) {
    named.push(
      `… and ${more} more members are covered by no signature; they were ignored and do not affect the verdict`,
    );
  }
  return named;
}

function isPathList(members: readonly string[] | UncoveredMembers): members is readonly string[] {
  return Array.isArray(members);
}
