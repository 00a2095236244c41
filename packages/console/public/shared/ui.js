// DOM helpers shared by the console pages: element building without innerHTML, times and ages, copy buttons.
// Issue 17 item 4: no inline script or style (CSP), text always inserted as text (no markup injection).

import { instantOf } from './instant.js';

/**
 * Characters that change how the text around them reads without being seen: controls, format characters (the
 * bidi overrides and isolates, zero-width spaces and joiners, U+FEFF), lone surrogates and the Unicode line and
 * paragraph separators. A bundle's text could use them to reverse the timestamp beside it or to make two kids
 * look alike (P157); tab, line feed and carriage return are ordinary white space and stay.
 */
const HIDDEN = /(?![\t\n\r])[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;
const HIDDEN_CHARACTER = new RegExp(HIDDEN.source, 'u');

/** ⟨U+XXXX⟩: a character written as its code point. */
function codePoint(c) {
  return `⟨U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** `text` with every hidden character written out as ⟨U+XXXX⟩, so what is on screen is what is in the data. */
export function visible(text) {
  return String(text).replace(HIDDEN, codePoint);
}

/**
 * Any value as text, never an exception: a bundle member may be an object String() refuses ({"toString": 1}),
 * which would stop the page half-drawn, before the failures it should explain (P157).
 */
export function textOf(value) {
  if (typeof value === 'string') return visible(value);
  if (value === null || typeof value !== 'object') return visible(String(value));
  try {
    return visible(JSON.stringify(value) ?? '');
  } catch {
    return Array.isArray(value) ? '[array]' : '[object]';
  }
}

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === 'class') node.className = textOf(value);
    else if (name === 'text') node.textContent = textOf(value);
    else node.setAttribute(name, value === true ? '' : textOf(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(textOf(child)));
  }
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

/** "3 min ago" / "in 2 h": a signed duration in plain words. */
export function relative(iso, now = Date.now()) {
  const at = instantOf(iso, 'earliest');
  if (Number.isNaN(at)) return 'unknown time';
  const seconds = Math.round((at - now) / 1000);
  const abs = Math.abs(seconds);
  const [value, unit] =
    abs < 90
      ? [abs, 's']
      : abs < 5400
        ? [Math.round(abs / 60), 'min']
        : abs < 172800
          ? [Math.round(abs / 3600), 'h']
          : [Math.round(abs / 86400), 'days'];
  return seconds <= 0 ? `${value} ${unit} ago` : `in ${value} ${unit}`;
}

export function timeEl(iso) {
  const text = textOf(iso);
  return el('time', { datetime: text, title: text }, `${text} (${relative(text)})`);
}

/** A button that copies `text`; it says so (for screen readers too, via the live status). */
export function copyButton(text, label, status) {
  const button = el('button', { type: 'button', class: 'copy', 'aria-label': `Copy ${label}` }, 'Copy');
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = `${label} copied`;
    } catch {
      status.textContent = `Copy failed: select the ${label} and copy it by hand`;
    }
  });
  return button;
}

export function badge(status) {
  const text = textOf(status);
  return el('span', { class: `badge badge-${text.replace(/[^a-z_]/gi, '')}` }, text);
}

/** A definition list from [term, value] pairs. */
export function facts(pairs) {
  return el(
    'dl',
    { class: 'facts' },
    pairs.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]),
  );
}

export function short(hash, keep = 16) {
  const text = textOf(hash);
  return text.length > keep + 8 ? `${text.slice(0, keep)}…${text.slice(-6)}` : text;
}

export async function getJson(url, init) {
  const response = await fetch(url, { ...init, headers: { accept: 'application/json', ...init?.headers } });
  const body = await response.json().catch(() => undefined);
  if (!response.ok && body?.error === undefined && body?.verified === undefined) {
    throw new Error(`${url} answered ${response.status}`);
  }
  return { status: response.status, ok: response.ok, body };
}

export function errorMessage(body, fallback) {
  return body?.error?.message ?? fallback;
}

/** Past this many marks an identifier is plainly not a key id; the rest is written out without marks (P158). */
const MAX_MARKED = 32;
/** Printable ASCII: what key ids, agent ids and issuers are written in when no one is trying to fool a reader. */
const PLAIN = /^[\x20-\x7e]$/;

/**
 * A key id, agent id or issuer as `code`, with every character outside printable ASCII marked and followed by
 * its code point (P172): "а" (U+0430, Cyrillic) and "a" look the same, and no table of confusables is needed to
 * see that an identifier uses one. A hidden character shows as its code point alone.
 */
export function identifier(value, attributes = {}) {
  if (typeof value !== 'string') return el('code', attributes, value);
  const parts = [];
  let plain = '';
  let marked = 0;
  const characters = Array.from(value);
  for (const [i, c] of characters.entries()) {
    if (PLAIN.test(c)) {
      plain += c;
      continue;
    }
    if (marked === MAX_MARKED) {
      plain += `${visible(characters.slice(i).join(''))} (more characters outside ASCII, not marked)`;
      break;
    }
    parts.push(plain);
    plain = '';
    marked += 1;
    const shown = HIDDEN_CHARACTER.test(c) || c < ' ' ? '' : c;
    parts.push(
      el(
        'mark',
        { class: 'non-ascii', title: `${codePoint(c)}: not an ASCII character` },
        shown,
        codePoint(c),
      ),
    );
  }
  parts.push(plain);
  return el(
    'code',
    { ...attributes, 'data-non-ascii': marked > 0 ? String(marked) : undefined },
    parts.filter((p) => p !== ''),
  );
}

/** `text` cut to `max` characters, saying how many were left out: a server may send a string of any length. */
export function bounded(text, max) {
  const characters = Array.from(text);
  if (characters.length <= max) return text;
  return `${characters.slice(0, max).join('')}… (${characters.length - max} more characters, not shown)`;
}

/** How much of a malformed value is drawn: enough to recognise it, not enough to bury the page (P158). */
const MAX_MALFORMED = 120;

/**
 * A value that is not what its place requires, marked as such with `reason`, written out (bounded, every
 * character outside printable ASCII marked) so that it cannot pass for a well-formed one (P179).
 */
export function malformed(value, reason) {
  const text = typeof value === 'string' ? value : textOf(value);
  return el(
    'span',
    { class: 'malformed', title: reason },
    badge('malformed'),
    ' ',
    identifier(bounded(text, MAX_MALFORMED)),
    el('span', { class: 'muted' }, ` (${reason})`),
  );
}

const BUNDLE_HASH = /^sha256:[0-9a-f]{64}$/;

export function isBundleHash(value) {
  return typeof value === 'string' && BUNDLE_HASH.test(value);
}

export function isLogIndex(value) {
  return Number.isSafeInteger(value) && value >= 0;
}

/** A bundle hash from a server: `sha256:` and 64 lowercase hex, shortened; anything else marked (P179). */
export function bundleHashEl(value, keep = 30) {
  if (!isBundleHash(value)) return malformed(value, 'not sha256:<64 lowercase hex>');
  return el('code', { title: value }, short(value, keep));
}

/** The forms a hash takes in a bundle (PROTOCOL §2.1, D3): V2 prefixed, V1 bare; lowercase hex only. */
const DIGEST_FORMS = {
  sha256: [/^sha256:[0-9a-f]{64}$/, 'sha256:<64 lowercase hex>'],
  'sha3-256': [/^sha3-256:[0-9a-f]{64}$/, 'sha3-256:<64 lowercase hex>'],
  hex: [/^[0-9a-f]{64}$/, '64 lowercase hex'],
};

/**
 * A hash a bundle states (an audit entry's chain link or intent hash), shortened when it has the form its place
 * requires (`form`: a key of DIGEST_FORMS; `genesis`: the chain's "GENESIS" allowed too), marked whole otherwise
 * (P186). Shortened, a look-alike letter or a wrong digit in the middle of a malformed hash would be cut out of
 * sight, and the value would read as the well-formed one it imitates.
 */
export function digestEl(value, form, { genesis = false, keep = 16 } = {}) {
  const [pattern, expected] = DIGEST_FORMS[form];
  if (genesis && value === 'GENESIS') return el('code', {}, value);
  if (typeof value === 'string' && pattern.test(value))
    return el('code', { title: value }, short(value, keep));
  return malformed(value, `not ${genesis ? 'GENESIS or ' : ''}${expected}`);
}

/** A revocation entry's reason hash: `sha256:` and 64 lowercase hex, written whole; anything else marked (P181). */
export function reasonHashEl(value) {
  if (!isBundleHash(value)) return malformed(value, 'not sha256:<64 lowercase hex>');
  return el('code', {}, value);
}

/** A log index from a server: a non-negative integer; anything else marked (P179). */
export function logIndexEl(value) {
  return isLogIndex(value) ? String(value) : malformed(value, 'not a log index');
}
