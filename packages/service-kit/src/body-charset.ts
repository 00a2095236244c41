// Every service reads a body as UTF-8 (JSON is UTF-8, RFC 8259 §8.1; the witness's notes are UTF-8 text). A body
// labelled with another charset would mean one thing here and another to a proxy or filter in front that honours
// the label, so it is refused before it is read (P175).
import { httpError } from './http-errors.ts';

/** The charset labels that name UTF-8 itself (WHATWG Encoding lists `utf8` beside `utf-8`). */
const UTF8_LABELS: ReadonlySet<string> = new Set(['utf-8', 'utf8']);

/**
 * True when a Content-Type header declares a charset that is not UTF-8. Every `charset` parameter counts, however
 * spelled or quoted: a header a lenient parser reads as `utf-16` is refused even when a strict one would skip it.
 */
export function declaresForeignCharset(contentType: string): boolean {
  const parameters = contentType.split(';');
  for (let i = 1; i < parameters.length; i++) {
    const parameter = parameters[i]!;
    const equals = parameter.indexOf('=');
    if (equals === -1 || parameter.slice(0, equals).trim().toLowerCase() !== 'charset') continue;
    const value = parameter
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/s, '$1')
      .trim()
      .toLowerCase();
    if (!UTF8_LABELS.has(value)) return true;
  }
  return false;
}

/** The 415 a foreign charset gets, saying what is accepted; sent as the profile's E001 (error-handler.ts, P202). */
export const FOREIGN_CHARSET = () =>
  httpError(
    'UNSUPPORTED_MEDIA_TYPE',
    'Unsupported Content-Type charset: bodies are read as UTF-8 (send them as UTF-8, with no charset or charset=utf-8)',
  );
