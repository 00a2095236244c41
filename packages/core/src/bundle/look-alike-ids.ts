// Ids a person cannot tell apart (brief "edges2", P383). PROTOCOL §3 row 9: the canonical form does no Unicode
// normalisation, so "agent-é" written precomposed and decomposed are two ids, as are "agent-1" and "agent-1" with a
// zero-width space, or "agent-a" with a Cyrillic "а". Each verifies; an operator reading the answer, a log line or a
// revocation list cannot see which one it was. Nothing in SPEC.md or PROTOCOL.md makes such an id invalid, so it is
// a warning (V2 answers only: D12 gives V1 no `warnings`), never a failure.

import { wholeScriptLatinReading } from './confusable-skeleton.ts';
import { spelledOut } from './json.ts';

/** Printable ASCII with no space: nearly every id, answered after one regex test and nothing else. */
const PLAIN = /^[\x21-\x7e]*$/;

/**
 * Characters that are invisible, render as nothing or as a blank, or move the text around them: controls, format
 * characters (zero-width ones, bidi embeddings, overrides and isolates, U+FEFF, soft hyphen), separators and
 * spaces of every kind, private-use and unassigned code points, and the default-ignorable letters and selectors
 * (combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian and variation selectors).
 */
const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Z}\p{Co}\p{Cn}\u115f\u1160\u17b4\u17b5\u3164\uffa0]|\u034f|[\u180b-\u180f]|[\ufe00-\ufe0f]|[\u{e0100}-\u{e01ef}]/u;
const LATIN = /\p{Script=Latin}/u;
const LATIN_LOOKALIKE = /[\p{Script=Cyrillic}\p{Script=Greek}]/u;
/** P520: the other scripts confusables.txt gives whole alphabets of Latin look-alikes in (`օ`, `Ꭺ`). */
const LATIN_LOOKALIKE_MORE = /[\p{Script=Armenian}\p{Script=Cherokee}]/u;

/** Longest part of an id a warning repeats (ids are the bundle's text and may be long). */
const MAX_SHOWN = 64;

/** At most this many ids are named; more are counted in one last warning. */
const MAX_WARNINGS = 5;

/** `id` with every code point outside printable ASCII written `⟨U+XXXX⟩` (P388), so two look-alikes read differently. */
function shown(id: string): string {
  const points = [...id];
  return points.length > MAX_SHOWN ? `${spelledOut(points.slice(0, MAX_SHOWN).join(''))}…` : spelledOut(id);
}

/** Why `id` may be taken for another id, or undefined when it reads as what it is. */
export function lookAlikeReason(id: string): string | undefined {
  if (PLAIN.test(id)) return undefined;
  const reasons: string[] = [];
  const hidden = HIDDEN.exec(id);
  if (hidden !== null) {
    const cp = (hidden[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');
    reasons.push(`holds U+${cp}, which is invisible or blank`);
  }
  const nfc = id.normalize('NFC');
  if (nfc !== id) reasons.push('is not in Unicode NFC');
  // Fullwidth letters, ligatures, superscripts, circled digits: NFC keeps them, and each reads as a plainer one.
  if (nfc.normalize('NFKC') !== nfc)
    reasons.push('holds compatibility characters (fullwidth, ligature, superscript…)');
  const latin = LATIN.test(id);
  const other = LATIN_LOOKALIKE.test(id);
  const more = LATIN_LOOKALIKE_MORE.test(id);
  if (latin && other) reasons.push('mixes Latin with Cyrillic or Greek letters');
  if (latin && more) reasons.push('mixes Latin with Armenian or Cherokee letters');
  // P455, P520: written in such letters only, every one a look-alike of a Latin one (UTS #39 whole-script).
  const reading = other || more ? wholeScriptLatinReading(id) : undefined;
  if (reading !== undefined) reasons.push(`reads as the Latin "${shown(reading)}" (whole-script look-alike)`);
  return reasons.length === 0 ? undefined : reasons.join(', ');
}

/** The warnings for the ids in `named` (`[where, value]`; values that are not strings are the schema's to judge). */
export function lookAlikeIdWarnings(named: Iterable<readonly [string, unknown]>): string[] {
  const warnings: string[] = [];
  const seen = new Set<string>();
  let more = 0;
  for (const [where, id] of named) {
    if (typeof id !== 'string') continue;
    const reason = lookAlikeReason(id);
    // One id named in several places (the parties' ids must agree: P246) is named once, where it is first.
    if (reason === undefined || seen.has(id)) continue;
    seen.add(id);
    if (warnings.length === MAX_WARNINGS) {
      more += 1;
      continue;
    }
    warnings.push(
      `${where} "${shown(id)}" ${reason}: an id that reads the same may be another (look-alike id; not a failure)`,
    );
  }
  if (more > 0) warnings.push(`${more} more look-alike ids not listed`);
  return warnings;
}
