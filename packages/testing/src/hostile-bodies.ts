// Request bodies no strict reader may take (brief "cbor3", P590): CBOR and JSON that decode to no single JSON value, or
// to one a lenient reader reads differently. One table for every body-taking route of every service, so each route is
// driven with the same bytes and the same refusal is expected of it. The bytes are written here by hand (CBOR heads,
// raw JSON text): an encoder would refuse to write most of them.
import { requestAsIs } from './request-as-is.ts';

/** One hostile body: what it is, its bytes and Content-Type, and the refusal it must get. */
export interface HostileBody {
  readonly name: string;
  readonly contentType: string;
  readonly body: Buffer;
  /** 400 for a body a reader refuses; 415 for one labelled with a charset other than UTF-8 (P175). */
  readonly status: 400 | 415;
  /** What the refusal's message says (the reader's own words: the decoder's fault, not the schema's). */
  readonly says: RegExp;
}

/** A CBOR head: major type and argument in the smallest form (the encoder's rule). */
function head(major: number, argument: number): Buffer {
  const m = major << 5;
  if (argument < 24) return Buffer.from([m | argument]);
  if (argument < 0x100) return Buffer.from([m | 24, argument]);
  if (argument < 0x1_0000) return Buffer.from([m | 25, argument >> 8, argument & 0xff]);
  const four = Buffer.alloc(5);
  four[0] = m | 26;
  four.writeUInt32BE(argument, 1);
  return four;
}

const cborText = (text: string): Buffer => {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([head(3, bytes.length), bytes]);
};

/** A CBOR map of `members` (each an encoded key and an encoded value), in the order given. */
function cborMap(members: readonly (readonly [Buffer, Buffer])[]): Buffer {
  return Buffer.concat([head(5, members.length), ...members.flat()]);
}

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s/g, ''), 'hex');

const NOT_CBOR = /not valid CBOR/;
const PROTOTYPE = /prototype/;
const NOT_JSON = /not valid JSON|Invalid JSON/;
const NOT_UTF8 = /not valid UTF-8/;
const FOREIGN_CHARSET = /charset/;
/** No bytes at all: the reader's "empty", or the route's own "not an object" (there is nothing to decode). */
const EMPTY = /empty|not valid|Invalid JSON|must be/;

/**
 * The table for a route whose body is an object of text members `base` (the route's own names, so a duplicate is one
 * of them; the values need not be valid: every body is refused before any member is looked at). The first member
 * carries the defect where one member's value is needed.
 */
export function hostileBodies(base: Readonly<Record<string, string>>): HostileBody[] {
  const names = Object.keys(base);
  const carrier = names[0];
  if (carrier === undefined) throw new Error('hostileBodies needs one member at least');
  const others = names.slice(1).map((name) => [cborText(name), cborText(base[name]!)] as const);
  /** The base body over CBOR with the carrier's value given as raw bytes. */
  const withValue = (value: Buffer): Buffer => cborMap([[cborText(carrier), value], ...others]);
  /** The base body over CBOR with one more member after it. */
  const withMember = (key: Buffer, value: Buffer): Buffer =>
    cborMap([[cborText(carrier), cborText(base[carrier]!)], ...others, [key, value]]);
  const valid = withValue(cborText(base[carrier]!));
  const json = JSON.stringify(base);
  /** The base body as JSON text with `extra` written as one more member (raw text, not escaped). */
  const jsonWith = (extra: string): string => `${json.slice(0, -1)},${extra}}`;
  const carrierJson = JSON.stringify(carrier);

  const cborRow = (name: string, body: Buffer, says: RegExp): HostileBody => ({
    name: `CBOR ${name}`,
    contentType: 'application/cbor',
    body,
    status: 400,
    says,
  });
  /** A row the decoder refuses (`Request body is not valid CBOR: <rule>`) under the rule `rule` names. */
  const cbor = (name: string, body: Buffer, rule: RegExp): HostileBody =>
    cborRow(name, body, new RegExp(`${NOT_CBOR.source}.*${rule.source}`));
  const jsonBody = (name: string, body: string | Buffer, says: RegExp): HostileBody => ({
    name: `JSON ${name}`,
    contentType: 'application/json',
    body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
    status: 400,
    says,
  });
  const utf16le = Buffer.from(json, 'utf16le');
  const utf16be = Buffer.from(utf16le).swap16();
  const textKey = (text: string) => cborText(text);
  const duplicate = /duplicate map key/;
  const notText = /map key is not a text string/;
  const float = /floating-point numbers are not allowed/;
  const tag = /tags are not allowed/;
  const indefinite = /indefinite length/;
  const above = /above 2\^53/;
  const truncated = /truncated CBOR/;

  return [
    // Duplicate keys: a first-wins and a last-wins reader would read two requests.
    cbor('duplicate key', withMember(textKey(carrier), cborText('other')), duplicate),
    cbor(
      'duplicate key spelled with a longer head',
      withMember(
        Buffer.concat([hex('78'), Buffer.from([carrier.length]), Buffer.from(carrier)]),
        cborText('o'),
      ),
      duplicate,
    ),
    cbor(
      'byte-string key with the same bytes as a text key',
      withMember(Buffer.concat([head(2, carrier.length), Buffer.from(carrier)]), cborText('other')),
      notText,
    ),
    cbor('integer key', withMember(hex('01'), cborText('other')), notText),
    cbor('map key', withMember(cborMap([]), cborText('other')), notText),
    cbor(
      'byte string under k beside text under k_b64 (one name once decoded)',
      cborMap([[textKey(carrier), hex('4101')], ...others, [textKey(`${carrier}_b64`), cborText('AQ==')]]),
      /appears twice after byte-string renaming/,
    ),
    cbor(
      '__proto__ key',
      withMember(textKey('__proto__'), cborMap([[textKey('admin'), hex('f5')]])),
      /__proto__/,
    ),
    cborRow(
      'constructor.prototype member',
      withMember(textKey('constructor'), cborMap([[textKey('prototype'), cborMap([])]])),
      PROTOTYPE,
    ),
    // Values JSON has no form for.
    cbor('NaN (half float)', withValue(hex('f97e00')), float),
    cbor('+Infinity (half float)', withValue(hex('f97c00')), float),
    cbor('-Infinity (double)', withValue(hex('fbfff0000000000000')), float),
    cbor('-0 (half float)', withValue(hex('f98000')), float),
    cbor('1.5 (single float)', withValue(hex('fa3fc00000')), float),
    cbor('undefined', withValue(hex('f7')), /undefined is not allowed/),
    cbor('simple value 0', withValue(hex('e0')), /simple value 0 /),
    cbor('false in the two-byte form (not well-formed)', withValue(hex('f814')), /simple value 24 /),
    cbor('simple value 255 (two-byte form)', withValue(hex('f8ff')), /simple value 24 /),
    cbor('reserved additional information 28', withValue(hex('1c')), /reserved additional information 28/),
    // Tags: no JSON form, and each a reader may or may not honour.
    cbor('tag 0 (date text)', withValue(Buffer.concat([hex('c0'), cborText('2026-01-01T00:00:00Z')])), tag),
    cbor('tag 1 (epoch date)', withValue(hex('c11a6955b900')), tag),
    cbor('tag 2 (positive bignum)', withValue(hex('c249010000000000000000')), tag),
    cbor('tag 3 (negative bignum)', withValue(hex('c349010000000000000000')), tag),
    cbor('tag 24 (embedded CBOR)', withValue(Buffer.concat([hex('d818'), head(2, 2), hex('6161')])), tag),
    cbor('tag 55799 (self-described CBOR) before the body', Buffer.concat([hex('d9d9f7'), valid]), tag),
    cbor('unknown tag 4711', withValue(Buffer.concat([hex('d91267'), cborText('x')])), tag),
    // Indefinite lengths: a streaming reader and a buffering one may cut them differently.
    cbor(
      'indefinite-length text',
      withValue(Buffer.concat([hex('7f'), cborText('a'), cborText('b'), hex('ff')])),
      indefinite,
    ),
    cbor('indefinite-length byte string', withValue(hex('5f4101ff')), indefinite),
    cbor('indefinite-length array', withValue(hex('9f01ff')), indefinite),
    cbor(
      'indefinite-length map (the body)',
      Buffer.concat([hex('bf'), valid.subarray(1), hex('ff')]),
      indefinite,
    ),
    // Integers no double holds exactly.
    cbor('2^53', withValue(hex('1b0020000000000000')), above),
    cbor('2^64 - 1', withValue(hex('1bffffffffffffffff')), above),
    cbor('-2^64', withValue(hex('3bffffffffffffffff')), above),
    // Lengths declared and not sent: refused as truncated, before anything of the declared size is made.
    cbor(
      'text declaring 2^53 - 1 bytes',
      withValue(Buffer.concat([hex('7b001fffffffffffff'), Buffer.from('abc')])),
      truncated,
    ),
    cbor(
      'byte string declaring 4 GiB - 1',
      withValue(Buffer.concat([hex('5affffffff'), Buffer.from('abc')])),
      truncated,
    ),
    cbor('array declaring 2^53 - 1 items', withValue(hex('9b001fffffffffffff01')), truncated),
    cbor(
      'map declaring 2^32 - 1 members (the body)',
      Buffer.concat([hex('baffffffff'), valid.subarray(1)]),
      truncated,
    ),
    // Structure and text.
    // 129 levels of containers, the innermost empty: one more than JSON's 128 (P592).
    cbor(
      '129 levels, the innermost an empty array',
      withValue(Buffer.concat([Buffer.alloc(127, 0x81), hex('80')])),
      /nesting deeper/,
    ),
    cbor(
      'nesting 200 arrays deep',
      withValue(Buffer.concat([Buffer.alloc(200, 0x81), hex('f6')])),
      /nesting deeper/,
    ),
    cbor('invalid UTF-8 text', withValue(hex('62c328')), /invalid UTF-8/),
    cbor('a surrogate encoded in UTF-8 text (CESU)', withValue(hex('63eda080')), /invalid UTF-8/),
    cbor('an overlong UTF-8 encoding', withValue(hex('62c0af')), /invalid UTF-8/),
    cbor('trailing bytes after the item', Buffer.concat([valid, hex('00')]), /trailing bytes/),
    cbor('two items (a sequence where one item is read)', Buffer.concat([valid, valid]), /trailing bytes/),
    cbor('truncated', valid.subarray(0, valid.length - 1), truncated),
    cborRow('empty body', Buffer.alloc(0), EMPTY),

    // JSON: duplicate names, in the clear and behind an escape.
    jsonBody('duplicate member', jsonWith(`${carrierJson}:"other"`), /appears twice/),
    jsonBody(
      'duplicate member behind a \\u escape',
      jsonWith(`"\\u${carrier.charCodeAt(0).toString(16).padStart(4, '0')}${carrier.slice(1)}":"other"`),
      /appears twice/,
    ),
    jsonBody('duplicate member in a nested object', jsonWith('"x":{"a":1,"a":2}'), /appears twice/),
    jsonBody('__proto__ member', jsonWith('"__proto__":{"admin":true}'), PROTOTYPE),
    jsonBody('__proto__ member behind a \\u escape', jsonWith('"\\u005f_proto__":{"admin":true}'), PROTOTYPE),
    jsonBody(
      'constructor.prototype member',
      jsonWith('"constructor":{"prototype":{"admin":true}}'),
      PROTOTYPE,
    ),
    jsonBody('lone high surrogate', `{${carrierJson}:"\\ud800"}`, /lone surrogate/),
    jsonBody('lone low surrogate in a name', jsonWith('"\\udc00":"x"'), /lone surrogate/),
    jsonBody('1e400', jsonWith('"n":1e400'), /no finite value/),
    jsonBody('-1e400', jsonWith('"n":-1e400'), /no finite value/),
    jsonBody(
      'an integer no double holds (2^64 + 1)',
      jsonWith('"n":18446744073709551617'),
      /not exactly the integer/,
    ),
    jsonBody('1e-400 (read as 0)', jsonWith('"n":1e-400'), /not exactly the integer/),
    jsonBody('NaN literal', jsonWith('"n":NaN'), NOT_JSON),
    jsonBody('Infinity literal', jsonWith('"n":Infinity'), NOT_JSON),
    jsonBody(
      '129 levels, the innermost an empty array',
      jsonWith(`"n":${'['.repeat(128)}${']'.repeat(128)}`),
      /depth|nested/,
    ),
    jsonBody('nesting 200 arrays deep', jsonWith(`"n":${'['.repeat(200)}${']'.repeat(200)}`), /depth|nested/),
    jsonBody('trailing text after the value', `${json} {}`, NOT_JSON),
    jsonBody('two byte-order marks', Buffer.concat([hex('efbbbfefbbbf'), Buffer.from(json)]), NOT_JSON),
    jsonBody(
      'invalid UTF-8',
      Buffer.concat([Buffer.from(`{${carrierJson}:"`), hex('c328'), Buffer.from('"}')]),
      NOT_UTF8,
    ),
    jsonBody(
      'a surrogate encoded in UTF-8 (CESU)',
      Buffer.concat([Buffer.from(`{${carrierJson}:"`), hex('eda080'), Buffer.from('"}')]),
      NOT_UTF8,
    ),
    jsonBody('UTF-16LE with its byte-order mark', Buffer.concat([hex('fffe'), utf16le]), NOT_UTF8),
    jsonBody('UTF-16BE with its byte-order mark', Buffer.concat([hex('feff'), utf16be]), NOT_UTF8),
    jsonBody('UTF-16LE without a byte-order mark', utf16le, NOT_JSON),
    jsonBody('empty body', Buffer.alloc(0), EMPTY),
    {
      name: 'JSON labelled charset=utf-16',
      contentType: 'application/json; charset=utf-16',
      body: Buffer.from(json),
      status: 415,
      says: FOREIGN_CHARSET,
    },
  ];
}

/** What a refusal said: its status and the first error's code and message, in the kit's shape or /verify's (D12). */
export interface Refusal {
  readonly status: number;
  readonly code: string | undefined;
  readonly message: string | undefined;
}

interface ErrorShapes {
  readonly error?: { readonly code?: string; readonly message?: string };
  readonly error_details?: readonly { readonly code?: string; readonly message?: string }[];
}

/** The code and message of an answer body in either error shape; undefined members when it has neither. */
export function refusalOf(status: number, text: string): Refusal {
  let body: ErrorShapes = {};
  try {
    body = JSON.parse(text) as ErrorShapes;
  } catch {
    // Not JSON: the mismatch report shows the status and no code.
  }
  const first = body.error ?? body.error_details?.[0];
  return { status, code: first?.code, message: first?.message };
}

/** A row of the table that was not refused as it must be: its name and what the route answered. */
export interface Mismatch extends Refusal {
  readonly name: string;
}

/**
 * Sends every body of `table` to `url` (method and headers as given, the body's Content-Type added) and returns the
 * rows not refused with their status, `code` and words: an empty list when the route holds. `answerOf` reads an
 * answer whose refusal is not the response itself (a batch answers per item).
 */
export async function hostileMismatches(
  url: string,
  table: readonly HostileBody[],
  options: {
    readonly method?: string;
    readonly headers?: Record<string, string>;
    readonly code?: string;
    readonly answerOf?: (status: number, text: string) => Refusal;
  } = {},
): Promise<Mismatch[]> {
  const code = options.code ?? 'PROTO-E001';
  const read = options.answerOf ?? refusalOf;
  const mismatches: Mismatch[] = [];
  for (const row of table) {
    const answer = await requestAsIs(url, {
      method: options.method ?? 'POST',
      headers: { ...options.headers, 'content-type': row.contentType },
      body: row.body,
    });
    const got = read(answer.status, answer.text);
    const held =
      got.status === row.status &&
      (row.status !== 400 || got.code === code) &&
      row.says.test(got.message ?? '');
    if (!held) mismatches.push({ name: row.name, ...got });
  }
  return mismatches;
}
