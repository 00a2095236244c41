// The revocation viewer: the current signed list, its Ed25519 signature checked in the browser over
// context ‖ 0x00 ‖ jcs(list without signature), and its freshness (next_update). Issue 17 item 3; D20.
import { concat, equalBytes, fromBase64, utf8, verifyEd25519 } from '../shared/bytes.js';
import { instantOf } from '../shared/instant.js';
import { CanonicalRefusal, canonicalize } from '../shared/jcs.js';
import {
  badge,
  clear,
  el,
  facts,
  getJson,
  identifier,
  reasonHashEl,
  relative,
  textOf,
  timeEl,
} from '../shared/ui.js';
import { forgetVerified, newestVerified, rememberVerified } from './newest.js';

const $ = (selector) => document.querySelector(selector);
/** The verifier's skew allowance for updated_at in the future (core DEFAULT_MAX_CLOCK_SKEW_MS). */
const MAX_SKEW_MS = 5 * 60 * 1000;
/** An unverified list may hold anything; its folded table draws this many entries at most. */
const MAX_UNVERIFIED = 1000;

async function verifySignature(list, config) {
  const signature = list?.signature;
  const publicKey = fromBase64(signature?.public_key_b64 ?? '');
  const sig = fromBase64(signature?.sig_b64 ?? '');
  if (signature?.alg !== 'ed25519' || publicKey?.length !== 32 || sig?.length !== 64) {
    return { ok: false, message: 'The list carries no well-formed Ed25519 signature.' };
  }
  const published = fromBase64(config.public_key_b64 ?? '');
  if (!published || !equalBytes(published, publicKey)) {
    return { ok: false, message: 'The list is signed by a key other than the one this service publishes.' };
  }
  const { signature: _unsigned, ...unsigned } = list;
  let canonical;
  try {
    canonical = canonicalize(unsigned);
  } catch (error) {
    // P197: core has no dcp-jcs-v1 form for it either (a fraction, an unsafe integer, nesting past 64).
    if (!(error instanceof CanonicalRefusal)) throw error;
    return {
      ok: false,
      message: `The list has no canonical form, so no signature can cover it: ${error.message}.`,
    };
  }
  const message = concat(utf8(config.context), Uint8Array.of(0), utf8(canonical));
  const ok = await verifyEd25519(publicKey, sig, message);
  return {
    ok,
    message: ok
      ? `Signature verified in this browser (Ed25519, WebCrypto) with key ${config.key_id}.`
      : 'The signature does not verify: the list was altered or signed with another key.',
  };
}

function freshness(list) {
  const now = Date.now();
  const next = instantOf(list.next_update, 'earliest');
  const updated = instantOf(list.updated_at, 'latest');
  if (Number.isNaN(next) || Number.isNaN(updated))
    return { state: 'stale', text: 'The list has no valid dates: do not rely on it.' };
  if (updated - now > MAX_SKEW_MS)
    return { state: 'stale', text: `Issued in the future (${list.updated_at}): check the clocks.` };
  if (now > next)
    return {
      state: 'stale',
      text: `STALE since ${relative(list.next_update)}: verifiers must not rely on this list (D20).`,
    };
  const left = next - now;
  const state = left < 0.2 * (next - updated) ? 'soon' : 'fresh';
  return {
    state,
    text: `Fresh: issued ${relative(list.updated_at)}, next update due ${relative(list.next_update)}.`,
  };
}

/** Whether the list's updated_at is no further ahead of this clock than a verifier allows. */
function issuedByNow(list) {
  return instantOf(list.updated_at, 'latest') - Date.now() <= MAX_SKEW_MS;
}

/**
 * The banner over the list. Its dates are part of what the signature covers: a list whose signature does not
 * verify has no date worth judging (anyone in the path could have moved next_update), so it is never called
 * fresh, and never green (P164). A verified list older than one this browser verified before is a replay, which
 * its own dates cannot show: it is called a rollback, never fresh (P172).
 */
function banner(list, check, newest) {
  if (!check.ok)
    return el(
      'div',
      { class: 'verdict fail', id: 'freshness-banner', 'data-state': 'unverified' },
      el('strong', {}, '✘ NOT VERIFIED'),
      el(
        'span',
        {},
        `${check.message} Do not rely on this list: its entries and dates (next update ${textOf(list.next_update)}) are not the issuer's.`,
      ),
    );
  if (newest && list.list_number < newest.list_number)
    return el(
      'div',
      { class: 'verdict fail', id: 'freshness-banner', 'data-state': 'rollback' },
      el('strong', {}, '✘ ROLLBACK'),
      el(
        'span',
        {},
        `This is list ${list.list_number}, but this browser verified list ${newest.list_number}` +
          `${newest.updated_at ? ` (issued ${textOf(newest.updated_at)})` : ''} before. An older list can leave out ` +
          'the revocations made since: do not rely on it, whatever its dates say. Someone is serving a list the ' +
          'issuer has replaced.',
      ),
    );
  const fresh = freshness(list);
  return el(
    'div',
    {
      class: `verdict ${fresh.state === 'stale' ? 'fail' : 'pass'}`,
      id: 'freshness-banner',
      'data-state': fresh.state,
    },
    el('strong', {}, fresh.state === 'stale' ? 'STALE' : 'FRESH'),
    el('span', {}, fresh.text),
  );
}

/**
 * Draws the list. `focusVerdict` (after "Forget…"): focus goes to the new verdict, which a screen reader then reads;
 * otherwise the live region announces it. Never both, or it is read twice (P197): the verdict box itself sits in no
 * live region, and the region carries its words only when focus does not.
 */
async function load({ focusVerdict = false } = {}) {
  // Run again after a "Forget…" (P186): nothing of the previous run may stay.
  $('#unverified-entries')?.remove();
  const news = clear($('#freshness-news'));
  const { body: config } = await getJson('/console/config.json');
  // Revalidated on every load (P179): the service sends max-age, and a viewer whose purpose is freshness must not
  // show a copy its cache kept without asking; an unchanged list still costs only a 304 (ETag, Last-Modified).
  const response = await fetch(config.list_path, {
    headers: { accept: 'application/json' },
    cache: 'no-cache',
  });
  const list = await response.json().catch(() => undefined);
  if (!response.ok || typeof list?.list_number !== 'number') {
    const missing = `No list: ${textOf(list?.error?.message ?? `HTTP ${response.status}`)}`;
    clear($('#list')).append(el('p', {}, badge('missing'), ` ${missing}`));
    // No verdict to move focus to: the region says what happened instead.
    news.textContent = missing;
    return;
  }
  const check = await verifySignature(list, config);
  const newest = check.ok ? newestVerified(list) : undefined;
  const verdict = banner(list, check, newest);
  clear($('#freshness')).append(verdict);
  if (focusVerdict) {
    verdict.tabIndex = -1;
    verdict.focus();
  } else news.textContent = [...verdict.children].map((part) => part.textContent).join(' ');
  // P186: outside the live region, which would otherwise read the control and its question out as news.
  const forget = clear($('#forget-area'));
  if (check.ok && newest && list.list_number < newest.list_number) forget.append(forgetControl(list, newest));
  if (check.ok && issuedByNow(list)) rememberVerified(list);
  clear($('#list')).append(
    el(
      'p',
      { id: 'list-signature', 'data-ok': String(check.ok) },
      badge(check.ok ? 'valid' : 'INVALID'),
      ' ',
      check.message,
    ),
    facts([
      ['Issuer', identifier(list.issuer)],
      ['Jurisdiction', identifier(list.jurisdiction)],
      ['List number', String(list.list_number)],
      ['Issued', timeEl(list.updated_at)],
      ['Next update', timeEl(list.next_update)],
      ['Entries', String(list.entries?.length ?? 0)],
      ['Signing key', el('code', {}, list.signature?.public_key_b64 ?? '—')],
      ['Document', el('a', { href: config.list_path }, config.list_path)],
    ]),
  );
  const entries = Array.isArray(list.entries) ? list.entries : [];
  const tbody = clear($('#revoked tbody'));
  if (!check.ok) {
    tbody.append(
      el(
        'tr',
        {},
        el(
          'td',
          { colspan: 3, class: 'muted' },
          'Not listed: the list did not verify, so these are not the issuer’s revocations.',
        ),
      ),
    );
    $('#revoked').closest('.table-wrap').after(unverifiedEntries(entries));
    return;
  }
  if (entries.length === 0)
    tbody.append(el('tr', {}, el('td', { colspan: 3, class: 'muted' }, 'No agent is revoked.')));
  for (const entry of entries) tbody.append(entryRow(entry));
}

/**
 * The way out of a ROLLBACK when the issuer really restarted its numbering (P179): forget the remembered number
 * for this issuer, jurisdiction and key, after a confirmation that names it. Only a person's clicks count
 * (`isTrusted`), and no list field leads here: whoever can only answer the list request cannot wipe the memory.
 */
function forgetControl(list, newest) {
  const ask = el(
    'button',
    {
      type: 'button',
      class: 'secondary',
      id: 'forget-newest',
      'aria-expanded': 'false',
      'aria-controls': 'forget-confirm',
    },
    'Forget the remembered list number for this issuer…',
  );
  // Both answers carry the question as their description: focus lands on one of them, not on the text (P186).
  const yes = el(
    'button',
    { type: 'button', class: 'danger', id: 'forget-yes', 'aria-describedby': 'forget-question' },
    `Forget list ${newest.list_number}`,
  );
  const no = el(
    'button',
    { type: 'button', class: 'secondary', id: 'forget-cancel', 'aria-describedby': 'forget-question' },
    'Cancel',
  );
  const confirm = el(
    'div',
    {
      id: 'forget-confirm',
      class: 'confirm',
      role: 'group',
      'aria-label': 'Confirm forgetting',
      hidden: true,
    },
    el(
      'p',
      { id: 'forget-question' },
      `Forget that this browser verified list ${newest.list_number} for issuer `,
      identifier(list.issuer),
      `, jurisdiction ${textOf(list.jurisdiction)}, signed with key `,
      el('code', {}, textOf(list.signature?.public_key_b64)),
      '? Do this only if the issuer told you, by some other channel than this service, that it restarted its ' +
        'list numbers. A replayed old list looks exactly like this. Afterwards the list shown now is the newest ' +
        'this browser knows of.',
    ),
    yes,
    ' ',
    no,
  );
  // P186: focus follows the question. Opened, it is on Cancel (the answer that changes nothing, as for any
  // destructive confirmation); closed by Cancel or Escape, back on the button that opened it.
  const show = (open) => {
    confirm.hidden = !open;
    ask.setAttribute('aria-expanded', String(open));
    (open ? no : ask).focus();
  };
  ask.addEventListener('click', (event) => {
    if (event.isTrusted) show(true);
  });
  no.addEventListener('click', () => show(false));
  confirm.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') show(false);
  });
  yes.addEventListener('click', async (event) => {
    if (!event.isTrusted) return;
    forgetVerified(list, newest.list_number);
    // The list is asked for again in place, and focus goes to the new verdict: a reload would drop it at the top
    // of the page, and the control it was on is gone.
    yes.disabled = true;
    await load({ focusVerdict: true }).catch(loadFailed);
  });
  return el('div', { class: 'forget' }, ask, confirm);
}

function entryRow(entry) {
  return el(
    'tr',
    {},
    el('td', {}, identifier(entry?.agent_id)),
    el('td', {}, timeEl(entry?.revoked_at)),
    el('td', {}, reasonHashEl(entry?.reason_hash)),
  );
}

/**
 * The entries of a list that did not verify, folded away and marked (P171): an operator may need to see what
 * was received (a cache serving a wrong copy, entries dropped on the way), but an entry nobody signed must not
 * read as a revocation, nor a missing one as a reinstatement.
 */
function unverifiedEntries(entries) {
  return el(
    'details',
    { id: 'unverified-entries', class: 'unverified' },
    el('summary', {}, `Show the ${entries.length} unverified entries received`),
    el(
      'p',
      { class: 'verdict fail' },
      'As received, not the issuer’s: the signature does not cover them. Do not act on any of them.',
    ),
    el(
      'div',
      { class: 'table-wrap' },
      el(
        'table',
        { class: 'unverified' },
        el('caption', {}, 'Unverified entries'),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['Agent', 'Revoked', 'Reason hash'].map((h) => el('th', { scope: 'col' }, h)),
          ),
        ),
        el('tbody', {}, entries.slice(0, MAX_UNVERIFIED).map(entryRow)),
      ),
    ),
    entries.length > MAX_UNVERIFIED
      ? el('p', { class: 'muted' }, `and ${entries.length - MAX_UNVERIFIED} more, not drawn`)
      : null,
  );
}

function loadFailed(error) {
  const failed = `Could not load the list: ${textOf(error?.message)}`;
  clear($('#list')).append(el('p', {}, failed));
  $('#freshness-news').textContent = failed;
}

load()
  .catch(loadFailed)
  .finally(() => {
    document.body.dataset.ready = 'true';
  });
