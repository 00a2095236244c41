// The verify page: reads a bundle (paste, drop, file; JSON or CBOR), calls POST /verify, explains the answer.
// Issue 17 item 1; SPEC.md verify result, D9–D12 (checks, tiers, modes), D7 (hash chain), D6 (PQ checkpoints).
import { concat, sha256, toHex, utf8 } from '../shared/bytes.js';
import { decodeCbor } from '../shared/cbor.js';
import { coveredBundleV2 } from '../shared/covered.js';
import { explain } from '../shared/errors.js';
import { checkBundleInLog } from '../shared/inclusion.js';
import { instantOf } from '../shared/instant.js';
import { CanonicalRefusal, canonicalize, canonicalizeV1 } from '../shared/jcs.js';
import {
  badge,
  bundleHashEl,
  clear,
  copyButton,
  digestEl,
  el,
  facts,
  getJson,
  identifier,
  relative,
  short,
  textOf,
  timeEl,
  visible,
} from '../shared/ui.js';

const $ = (selector) => document.querySelector(selector);
const status = $('#status');
const result = $('#result');
const text = $('#bundle-text');
const fileInput = $('#bundle-file');
const dropzone = $('#dropzone');
let chosen; // {name, bytes} of a dropped or chosen file
let settings = { config: {} };
/**
 * The bundle on the page, numbered: every async step (reading a file, the POST, each await while drawing, the
 * log look-up) belongs to one generation and drops its output once a newer one started. Clear, a new file, an
 * edit and Verify each start one and abort the previous one's requests (P163). Without this a slow answer
 * arriving after Clear or after another file was chosen drew one bundle's verdict under another's name.
 */
let generation = 0;
let controller = new AbortController();

/** Ends the current generation (its fetches are aborted) and starts the next: {signal, live()}. */
function nextRun() {
  controller.abort();
  controller = new AbortController();
  generation += 1;
  const id = generation;
  return { signal: controller.signal, live: () => id === generation };
}

const TIER_RANK = { routine: 0, standard: 1, elevated: 2, maximum: 3 };
const MODE_FLOOR = {
  classical_only: 'routine',
  hybrid_preferred: 'standard',
  hybrid_required: 'elevated',
  pq_only: 'elevated',
};
const TIER_MODE = {
  routine: 'classical_only',
  standard: 'hybrid_preferred',
  elevated: 'hybrid_required',
  maximum: 'hybrid_required',
};
const CHECK_LABELS = {
  schema: 'Schema',
  classical_sig: 'Classical signature (Ed25519)',
  pq_sig: 'Post-quantum signature (ML-DSA-65)',
  manifest_integrity: 'Manifest integrity',
  hash_chain: 'Audit hash chain',
  session_nonce: 'Session nonce',
  artifact_sigs: 'Artifact signatures',
  intent_hash: 'Intent hash links',
  checkpoints: 'PQ checkpoints',
  key_validity: 'Key validity',
  revocation: 'Revocation list',
  anchor: 'Anchor receipt',
  attestation: 'Jurisdiction attestation',
  merkle: 'Merkle root',
  signature: 'Signature',
};
const ARTIFACTS = ['responsible_principal_record', 'agent_passport', 'intent', 'policy_decision'];
/**
 * Audit entries drawn on the timeline. The service reads a bundle of up to 1 MB, and 1 MB of `{}` is 300,000
 * entries: each drawn entry costs a SHA-256 and a dozen nodes, so past this the page would hang (P158). The
 * service checks every entry; the timeline says how many it leaves out.
 */
const MAX_TIMELINE_ENTRIES = 1000;
/** Characters of a service finding quoted under the entry it names (the Errors section has it in full). */
const MAX_REPORTED_LENGTH = 300;
/** Checkpoint marks drawn under one entry (a bundle may put thousands on the same entry). */
const MAX_MARKS_PER_ENTRY = 5;
/** The service's body limit when its config does not say (service-kit DEFAULT_BODY_LIMIT). */
const DEFAULT_MAX_BODY_BYTES = 1_048_576;
/** How much larger than the body limit a chosen file may be (JSON is sent without its indentation). */
const FILE_SIZE_FACTOR = 4;

async function boot() {
  const config = await getJson('/console/config.json').catch(() => ({ body: {} }));
  settings = { config: config.body ?? {} };
}

function isRecord(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const payloadOf = (artifact) => (isRecord(artifact?.payload) ? artifact.payload : artifact);
/** A name from the bundle looked up in one of the tables above: own keys only (`constructor` is no tier). */
const known = (table, name) => typeof name === 'string' && Object.hasOwn(table, name);
/** A count from the bundle, read without conversion: an object there must not throw mid-render. */
const countOf = (value) => (typeof value === 'number' ? value : Number.NaN);

/** CBOR map {"signed_bundle": <item>} around an already-encoded item: the bytes go out unchanged. */
function wrapCbor(item) {
  const key = utf8('signed_bundle');
  return concat(Uint8Array.of(0xa1, 0x60 + key.length), key, item);
}

/**
 * A JSON file's text, refused when its bytes are not UTF-8 (P220). The lenient default decoder turned each bad byte
 * into U+FFFD, so a file the service refuses (sent as bytes, it is `400`) was verified as the text the page made of
 * it: a signature over "…\uFFFD…" passed for a file that holds FF there, bytes nobody signed. A leading byte order
 * mark is read as the service reads it (skipped).
 */
function jsonFileText(bytes) {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error(
      'This file is not valid UTF-8, so it is not JSON (RFC 8259 §8.1); the service refuses it too.',
    );
  }
}

function readInput() {
  if (chosen) {
    const first = chosen.bytes.find((b) => ![0x20, 0x09, 0x0a, 0x0d, 0xef, 0xbb, 0xbf].includes(b));
    if (first === 0x7b) return fromJsonText(jsonFileText(chosen.bytes));
    let decoded;
    try {
      decoded = decodeCbor(chosen.bytes);
    } catch (error) {
      throw new Error(`This is not valid CBOR: ${error.message}`);
    }
    const wrapped = isRecord(decoded) && 'signed_bundle' in decoded;
    return {
      signed: wrapped ? decoded.signed_bundle : decoded,
      body: wrapped ? chosen.bytes : wrapCbor(chosen.bytes),
      type: 'application/cbor',
      format: 'CBOR',
    };
  }
  return fromJsonText(text.value);
}

function fromJsonText(source) {
  if (source.trim() === '') throw new Error('Paste a bundle, drop a file or choose one first.');
  let parsed;
  try {
    parsed = JSON.parse(source);
  } catch (error) {
    throw new Error(`This is not valid JSON: ${error.message}`);
  }
  const wrapped = isRecord(parsed) && 'signed_bundle' in parsed;
  return {
    signed: wrapped ? parsed.signed_bundle : parsed,
    // The text as pasted, wrapped as text when bare (P193): the service's strict reading (duplicate keys, numbers
    // with no finite value) must judge the bytes the person holds, not what JSON.parse kept of them.
    body: wrapped ? source : `{"signed_bundle":${source}}`,
    type: 'application/json',
    format: 'JSON',
  };
}

async function verify() {
  const run = nextRun();
  let input;
  try {
    input = readInput();
  } catch (error) {
    status.textContent = visible(error.message);
    clear(result);
    return;
  }
  status.textContent = 'Verifying…';
  $('#verify-button').disabled = true;
  try {
    const response = await fetch('/verify', {
      method: 'POST',
      headers: { 'content-type': input.type, accept: 'application/json' },
      body: input.body,
      signal: run.signal,
    });
    const answer = await response.json().catch(() => undefined);
    if (!run.live()) return;
    if (!isRecord(answer)) throw new Error(`The service answered ${response.status} without a JSON body.`);
    if (answer.error) {
      status.textContent = visible(`${textOf(answer.error.code)}: ${textOf(answer.error.message)}`);
      clear(result);
      return;
    }
    // P218: this polite status line is the page's one announcement of the verdict, in the verdict's own words; the
    // result drawn below is in no live region (it was one, with the verdict a second one inside it: everything was
    // read out, the verdict twice). It is set in the same task as the verdict box is drawn.
    status.textContent = visible(
      `Checked the ${input.format} bundle (HTTP ${response.status}): ${verdictWords(answer).join(', ')}. Details below.`,
    );
    await render(answer, input.signed, run);
  } catch (error) {
    if (run.live()) status.textContent = visible(`Could not verify: ${error.message}`);
  } finally {
    // A newer generation owns the button now (Clear and a new input give it back themselves).
    if (run.live()) $('#verify-button').disabled = false;
  }
}

/** The verdict as the box shows it and the status line announces it: the word, then version, tier and mode. */
function verdictWords(answer) {
  const tier = answer.resolved_tier;
  return [
    answer.verified === true ? '✔ VERIFIED' : '✘ NOT VERIFIED',
    `version ${textOf(answer.version ?? '?')}`,
    ...(tier ? [`tier ${textOf(tier)}`, `checked as ${known(TIER_MODE, tier) ? TIER_MODE[tier] : '?'}`] : []),
  ];
}

function section(title, id, ...children) {
  return el('section', { class: 'panel', 'aria-labelledby': id }, el('h2', { id }, title), ...children);
}

/** Draws the answer section by section; stops at the first await after which `run` is no longer current. */
async function render(answer, signed, run) {
  clear(result);
  const bundle = isRecord(signed?.bundle) ? signed.bundle : {};
  const details = Array.isArray(answer.error_details) ? answer.error_details : [];
  const verified = answer.verified === true;
  const tier = answer.resolved_tier;
  const mode = settings.config.verifier_mode;
  const [word, ...parts] = verdictWords(answer);
  // No role="status" (P218): the status line above announces these words; the box is read where it stands.
  result.append(
    el(
      'div',
      { class: `verdict ${verified ? 'pass' : 'fail'}`, id: 'verdict' },
      el('strong', {}, word),
      parts.map((part) => el('span', {}, part)),
    ),
  );
  const hash = await hashPanel(signed, run);
  if (!run.live()) return;
  result.append(hash);
  result.append(section('Security tier and mode', 'tier-title', tierExplanation(tier, mode, bundle)));
  result.append(section('Checks', 'checks-title', checksTable(answer.checks ?? {}, details)));
  const failures = failureList(details);
  if (failures) result.append(section('Errors', 'errors-title', failures));
  result.append(section('Warnings', 'warnings-title', warningList(answer)));
  result.append(section('Signers', 'signers-title', signersTable(bundle, signed)));
  const trail = await timeline(bundle, details, isV2(signed), run);
  if (!run.live()) return;
  result.append(section('Audit trail', 'timeline-title', trail));
}

function tierExplanation(tier, mode, bundle) {
  const intent = payloadOf(bundle.intent);
  const decision = payloadOf(bundle.policy_decision);
  const candidates = [];
  if (isRecord(intent)) {
    const score = Number.isFinite(intent.risk_score)
      ? intent.risk_score
      : Number.isFinite(decision?.risk_score)
        ? decision.risk_score
        : 0;
    const classes = Array.isArray(intent.data_classes) ? intent.data_classes : [];
    const max = classes.filter((c) => c === 'credentials' || c === 'children_data');
    const sensitive = classes.filter((c) =>
      ['pii', 'credentials', 'financial_data', 'health_data', 'children_data'].includes(c),
    );
    let computed = 'routine';
    let why = `risk score ${score} < 200, no sensitive data class`;
    if (score >= 800 || max.length)
      [computed, why] = [
        'maximum',
        max.length ? `data class ${max.join(', ')}` : `risk score ${score} ≥ 800`,
      ];
    else if (score >= 500 || sensitive.length || intent.action_type === 'initiate_payment')
      [computed, why] = [
        'elevated',
        score >= 500
          ? `risk score ${score} ≥ 500`
          : sensitive.length
            ? `data class ${sensitive.join(', ')}`
            : 'action initiate_payment',
      ];
    else if (score >= 200) [computed, why] = ['standard', `risk score ${score} ≥ 200`];
    candidates.push(['Intent (computed, PROTOCOL §6.7)', computed, why]);
    if (known(TIER_RANK, intent.security_tier))
      candidates.push([
        'Intent (declared security_tier)',
        intent.security_tier,
        'as the producer declared it',
      ]);
  }
  if (known(TIER_RANK, decision?.resolved_tier))
    candidates.push([
      'Policy decision (resolved_tier)',
      decision.resolved_tier,
      'signed by the policy engine',
    ]);
  if (known(MODE_FLOOR, mode))
    candidates.push([`Verifier mode (${mode})`, MODE_FLOOR[mode], 'this service’s VERIFIER_MODE floor']);
  const rows = candidates.map(([source, candidate, why]) =>
    el(
      'tr',
      { class: candidate === tier ? 'deciding' : '' },
      el('th', { scope: 'row' }, source),
      el('td', {}, badge(candidate)),
      el('td', {}, why),
      el('td', {}, candidate === tier ? 'sets the tier' : ''),
    ),
  );
  const deciding = candidates.some(([, candidate]) => candidate === tier);
  return el(
    'div',
    {},
    el(
      'p',
      {},
      tier
        ? `Resolved tier: ${tier}. The highest candidate wins, so a bundle can never talk itself down (D10).`
        : 'The service did not resolve a tier.',
    ),
    el(
      'div',
      { class: 'table-wrap' },
      el(
        'table',
        { id: 'tier-candidates' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { scope: 'col' }, 'Candidate'),
            el('th', { scope: 'col' }, 'Tier'),
            el('th', { scope: 'col' }, 'Why'),
            el('th', { scope: 'col' }, 'Decides'),
          ),
        ),
        el('tbody', {}, rows),
      ),
    ),
    tier && !deciding
      ? el(
          'p',
          { class: 'muted' },
          'The deciding candidate is the verifier’s policy for this passport (VERIFIER_POLICY).',
        )
      : null,
    el(
      'p',
      {},
      `Verifier mode: ${mode ?? 'unknown'}; signatures checked as ${tier ? TIER_MODE[tier] : 'unknown'}.`,
    ),
  );
}

function checksTable(checks, details) {
  const rows = Object.entries(checks).map(([name, state]) => {
    const findings = details.filter((d) => d.check === name);
    return el(
      'tr',
      { 'data-check': name },
      el(
        'th',
        { scope: 'row', class: 'check-name' },
        CHECK_LABELS[name] ?? name,
        el('div', { class: 'muted mono' }, name),
      ),
      el('td', {}, badge(String(state))),
      el(
        'td',
        {},
        // One line per code (the Errors section below lists every finding in full).
        [...new Set(findings.map((f) => f.code))].map((code) => {
          const count = findings.filter((f) => f.code === code).length;
          return el(
            'div',
            {},
            el('code', {}, code),
            ` ${explain(code)?.title ?? ''}`,
            count > 1 ? ` ×${count}` : '',
          );
        }),
      ),
    );
  });
  return el(
    'div',
    { class: 'table-wrap' },
    el(
      'table',
      { id: 'checks' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { scope: 'col' }, 'Check'),
          el('th', { scope: 'col' }, 'Status'),
          el('th', { scope: 'col' }, 'Finding'),
        ),
      ),
      el('tbody', {}, rows),
    ),
  );
}

function failureList(details) {
  if (details.length === 0) return undefined;
  return el(
    'ul',
    { class: 'findings', id: 'failures' },
    details.map((d) => {
      const meaning = explain(d.code);
      return el(
        'li',
        {},
        el('strong', {}, el('code', {}, d.code), ` ${meaning?.title ?? ''}`),
        el('span', { class: 'muted' }, ` (check ${d.check})`),
        el('div', { class: 'mono' }, d.message),
        meaning
          ? el(
              'div',
              {},
              meaning.text,
              ' ',
              el('a', { href: `/console/errors.html#${meaning.anchor}` }, `About ${d.code}`),
            )
          : null,
      );
    }),
  );
}

function warningList(answer) {
  const warnings = Array.isArray(answer.warnings) ? [...answer.warnings] : [];
  const skipped = Object.entries(answer.checks ?? {})
    .filter(([, state]) => state === 'skipped')
    .map(([name]) => name);
  if (skipped.length)
    warnings.push(
      `Skipped checks: ${skipped.join(', ')} (not configured here, or not reached after a failure).`,
    );
  if (warnings.length === 0) return el('p', { class: 'muted' }, 'No warnings.');
  return el(
    'ul',
    { class: 'findings warnings', id: 'warnings' },
    warnings.map((w) => el('li', {}, w)),
  );
}

function keyIndex(bundle) {
  const keys = new Map();
  const rpr = payloadOf(bundle.responsible_principal_record);
  const passport = payloadOf(bundle.agent_passport);
  for (const [owner, list] of [
    ['principal', rpr?.binding_keys],
    ['agent', passport?.keys],
  ]) {
    for (const key of Array.isArray(list) ? list : [])
      if (isRecord(key) && key.kid) keys.set(key.kid, { ...key, owner });
  }
  return keys;
}

function signersTable(bundle, signed) {
  const keys = keyIndex(bundle);
  const signedBy = new Map();
  const note = (kid, alg, what) => {
    if (!kid) return;
    const entry = signedBy.get(kid) ?? { alg, what: [] };
    entry.what.push(what);
    signedBy.set(kid, entry);
  };
  const sigs = (holder, what) => {
    const composite = holder?.composite_sig ?? holder?.signature;
    if (!isRecord(composite)) return;
    for (const half of [composite.classical, composite.pq, composite])
      if (isRecord(half) && half.kid) note(half.kid, half.alg, what);
  };
  for (const name of ARTIFACTS) sigs(bundle[name], name);
  sigs(signed?.signature, 'bundle (manifest)');
  for (const [i, c] of (Array.isArray(bundle.pq_checkpoints) ? bundle.pq_checkpoints : []).entries()) {
    sigs(c, `checkpoint ${textOf(c?.checkpoint_index ?? i)}`);
  }
  const rows = [...signedBy.entries()].map(([kid, use]) => {
    const key = keys.get(kid);
    const expires = typeof key?.expires_at === 'string' ? key.expires_at : undefined;
    // As the verifier judges it: unreadable counts as expired, a leap second ends no later than written.
    const expired = expires !== undefined && !(instantOf(expires, 'earliest') > Date.now());
    return el(
      'tr',
      {},
      el('td', {}, identifier(kid)),
      el('td', { class: 'short' }, use.alg ?? key?.alg ?? '?'),
      el('td', { class: 'short wide-only' }, key?.owner ?? 'not in the bundle’s key sets'),
      el(
        'td',
        {},
        [...new Set(use.what.map((w) => w.replace(/^checkpoint \d+$/, 'PQ checkpoints')))].join(', '),
      ),
      el(
        'td',
        { class: 'wide-only' },
        key?.created_at ? `${relative(key.created_at).replace(' ago', '')} old` : '—',
      ),
      el(
        'td',
        {},
        expires ? el('span', {}, expired ? badge('stale') : '', ` ${expires} (${relative(expires)})`) : '—',
      ),
    );
  });
  return el(
    'div',
    { class: 'table-wrap' },
    el(
      'table',
      { id: 'signers' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          // Owner and age fold away at phone width (the kid and expiry stay).
          ['Key id (kid)', 'Algorithm', 'Owner', 'Signed', 'Age', 'Expires'].map((h) =>
            el('th', { scope: 'col', class: h === 'Owner' || h === 'Age' ? 'wide-only' : undefined }, h),
          ),
        ),
      ),
      el('tbody', {}, rows),
    ),
  );
}

/**
 * An entry's link as the next entry must state it, `{hash}`: V2 `sha256:<hex>`, V1 bare hex (PROTOCOL §2.1, D3).
 * `{refused}` when the entry has no canonical form in its version (core refuses it too, P197).
 */
async function entryHash(entry, v2) {
  const canonical = canonicalText(entry, v2);
  if ('refused' in canonical) return canonical;
  const hex = toHex(await sha256(utf8(canonical.text)));
  return { hash: v2 ? `sha256:${hex}` : hex };
}

/** `{text}` of `value` in its version's canonical form (V2 dcp-jcs-v1, V1 floats allowed), or `{refused}`: why not. */
function canonicalText(value, v2) {
  try {
    return { text: v2 ? canonicalize(value) : canonicalizeV1(value) };
  } catch (error) {
    if (error instanceof CanonicalRefusal) return { refused: error.message };
    return { refused: 'the value could not be read' };
  }
}

async function timeline(bundle, details, v2, run) {
  const entries = Array.isArray(bundle.audit_entries) ? bundle.audit_entries : [];
  if (entries.length === 0) return el('p', { class: 'muted' }, 'This bundle has no audit entries.');
  const checkpoints = Array.isArray(bundle.pq_checkpoints) ? bundle.pq_checkpoints : [];
  const serverBreaks = serviceBreaks(details);
  const intentHash = payloadOf(bundle.intent) && bundle.manifest?.intent_hash;
  const shown = entries.slice(0, MAX_TIMELINE_ENTRIES);
  // Checkpoints by the entry they close (entry_count - 1), and every count in order: one pass over each,
  // whatever the bundle holds (a scan of all checkpoints per entry was quadratic, P158).
  const closing = new Map();
  for (const c of checkpoints) {
    const last = countOf(c?.audit_state?.entry_count) - 1;
    if (!Number.isInteger(last) || last < 0 || last >= shown.length) continue;
    const list = closing.get(last) ?? [];
    list.push(c);
    closing.set(last, list);
  }
  const counts = checkpoints
    .map((c) => countOf(c?.audit_state?.entry_count))
    .filter((n) => Number.isFinite(n))
    .sort((a, b) => a - b);
  let below = 0; // counts[0..below) are ≤ the current entry's index
  const items = [];
  let previous; // the entry before: {hash} as the next link must state it, or {refused} with core's reason
  for (const [i, entry] of shown.entries()) {
    const expected = i === 0 ? { hash: 'GENESIS' } : previous;
    // No hash of the entry before, no comparison: a link is neither right nor wrong against a hash core refuses.
    const linkChecked = entry?.prev_hash !== undefined && expected.hash !== undefined;
    const brokenHere = (linkChecked && entry.prev_hash !== expected.hash) || serverBreaks.has(i);
    const reported = serverBreaks.get(i);
    const own = await entryHash(entry, v2);
    previous = own;
    if (!run.live()) return undefined; // superseded: the rest would be drawn for nothing
    while (below < counts.length && counts[below] <= i) below++;
    // What the checkpoints closing here add: the entries after the largest count up to this one (D6).
    const from = below > 0 ? Math.max(0, counts[below - 1]) : 0;
    const covering = closing.get(i) ?? [];
    items.push(
      el(
        'li',
        {
          class: [brokenHere ? 'broken' : '', own.refused ? 'unhashable' : ''].join(' ').trim(),
          'data-entry': i,
          'data-service-break': reported ? 'true' : undefined,
          'data-unhashable': own.refused ? 'true' : undefined,
        },
        el('strong', {}, `#${i} `, entry?.event_type ?? entry?.outcome ?? entry?.action ?? 'entry'),
        ' ',
        entry?.timestamp ? timeEl(entry.timestamp) : null,
        brokenHere && expected.hash !== undefined
          ? el(
              'div',
              { class: 'break-note' },
              badge('break'),
              ` Chain breaks here: prev_hash should be ${short(expected.hash, 24)}.`,
            )
          : null,
        // P197: the link to an entry this page could not hash is unchecked here, and says why, not "should be ?".
        expected.refused && entry?.prev_hash !== undefined
          ? el(
              'div',
              { class: 'break-note unchecked-link' },
              badge('unchecked'),
              ` This page could not hash entry #${i - 1}, so it cannot check this prev_hash: ${bounded(expected.refused, MAX_REPORTED_LENGTH)}.`,
            )
          : null,
        own.refused
          ? el(
              'div',
              { class: 'break-note unhashable-note' },
              badge('unhashable'),
              ` This page could not hash this entry, as the ${v2 ? 'V2 (dcp-jcs-v1)' : 'V1'} canonical form has none for it: ${bounded(own.refused, MAX_REPORTED_LENGTH)}.`,
            )
          : null,
        // The service's own words for this entry: its finding stands even where this page's hash agreed.
        reported
          ? el(
              'div',
              { class: 'break-note service-break' },
              `The service reports: ${reported.map((m) => bounded(m, MAX_REPORTED_LENGTH)).join(' · ')}`,
            )
          : null,
        facts([
          [
            'intent',
            entry?.intent_hash
              ? el(
                  'span',
                  {},
                  digestEl(entry.intent_hash, v2 ? 'sha256' : 'hex'),
                  intentHash && entry.intent_hash !== intentHash
                    ? ' (differs from the manifest’s intent_hash)'
                    : '',
                )
              : (entry?.intent_id ?? '—'),
          ],
          // P186: each link as the bundle states it, or marked when it is no hash of the form its place takes.
          ['prev_hash', linkEl(entry?.prev_hash, v2 ? 'sha256' : 'hex')],
          ['prev_hash_secondary', linkEl(entry?.prev_hash_secondary, 'sha3-256')],
          ['decision', entry?.policy_decision ?? '—'],
        ]),
        covering
          .slice(0, MAX_MARKS_PER_ENTRY)
          .map((c) =>
            el(
              'div',
              { class: 'checkpoint-mark' },
              checkpointCoverage(c, i, from),
              c.timestamp ? ` · ${textOf(c.timestamp)}` : '',
            ),
          ),
        covering.length > MAX_MARKS_PER_ENTRY
          ? el(
              'div',
              { class: 'checkpoint-mark' },
              `and ${covering.length - MAX_MARKS_PER_ENTRY} more checkpoints over the same entries`,
            )
          : null,
      ),
    );
  }
  const coverage = checkpoints.length
    ? el(
        'p',
        {},
        `${checkpoints.length} PQ checkpoint(s); each signs the audit state after the entries it counts.`,
      )
    : el('p', { class: 'muted' }, 'No PQ checkpoints in this bundle.');
  const truncated =
    entries.length > shown.length
      ? el(
          'p',
          { id: 'timeline-truncated', class: 'muted' },
          `Showing the first ${shown.length} of ${entries.length} audit entries; the service checked all ${entries.length} (see Checks and Errors above).`,
        )
      : null;
  return el('div', {}, coverage, truncated, el('ol', { class: 'timeline', id: 'timeline' }, items));
}

/**
 * The entries the service names in its hash_chain findings, with their messages: V2 writes `entry[3]` or
 * `entries[3]`, V1 `prev_hash chain (entry 3)` (core bundle/v1/checks/hash-chain.ts). A finding without an
 * index (a policy refusal, "2 more prev_hash chain breaks") names no entry.
 */
function serviceBreaks(details) {
  const named = new Map();
  for (const d of details) {
    if (d?.check !== 'hash_chain') continue;
    const message = textOf(d.message);
    for (const m of message.matchAll(/entr(?:y|ies)\[(\d+)\]|\(entry (\d+)\)/g)) {
      const index = Number(m[1] ?? m[2]);
      const messages = named.get(index) ?? [];
      if (!messages.includes(message)) named.set(index, [...messages, message]);
    }
  }
  return named;
}

/** `text` cut to `max` characters (a service message quotes the bundle's value, which may be long). */
function bounded(text, max) {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A chain link: absent is a dash; "GENESIS" or a hash of `form` is drawn; anything else is marked (P186). */
function linkEl(value, form) {
  return value === undefined ? el('code', {}, '—') : digestEl(value, form, { genesis: true });
}

/** What a checkpoint adds: the entries from the largest count at or below this entry, up to it (D6). */
function checkpointCoverage(checkpoint, lastIndex, from) {
  const added = from === lastIndex ? `#${lastIndex}` : `#${from}–#${lastIndex}`;
  return `PQ checkpoint ${textOf(checkpoint.checkpoint_index)}: signs the trail #0–#${lastIndex}, adding ${added}`;
}

/** V2 as the service detects it (core detectBundleVersion): a bundle version or manifest, or a composite_sig. */
function isV2(signed) {
  return (
    signed?.bundle?.dcp_bundle_version !== undefined ||
    signed?.bundle?.manifest !== undefined ||
    signed?.signature?.composite_sig !== undefined
  );
}

/**
 * {hash, stated}: the bundle hash recomputed here from the content (core computeBundleHashes, P62): V1 over
 * the canonical `bundle`, V2 over jcs({bundle, signature}) with the bundle's uncovered members set aside (P247), the
 * hash the service anchors and `proto hash` prints. `stated` is a V1 bundle's own signature.bundle_hash,
 * which is only a claim: a bundle that named the hash of another, logged bundle was shown as that bundle and
 * "included" in the log (P157).
 */
async function bundleHashOf(signed) {
  if (!isRecord(signed?.bundle) || !isRecord(signed?.signature)) return {};
  const v2 = isV2(signed);
  const stated = v2 ? undefined : signed.signature.bundle_hash;
  const subject = v2
    ? { bundle: coveredBundleV2(signed.bundle), signature: signed.signature }
    : signed.bundle;
  // P197: in the bundle's own version's form, so a bundle core has no hash for gets none here either.
  const canonical = canonicalText(subject, v2);
  if ('refused' in canonical) return { stated, refused: canonical.refused };
  return { hash: `sha256:${toHex(await sha256(utf8(canonical.text)))}`, stated };
}

async function hashPanel(signed, run) {
  const { hash, stated, refused } = await bundleHashOf(signed);
  const copied = el('span', { class: 'muted', role: 'status' });
  const log = el('p', { id: 'log-inclusion' });
  const panel = section(
    'Bundle hash',
    'hash-title',
    hash
      ? el(
          'p',
          {},
          el('code', { id: 'bundle-hash' }, hash),
          copyButton(hash, 'bundle hash', copied),
          ' ',
          copied,
        )
      : el(
          'p',
          { id: 'no-bundle-hash' },
          refused
            ? `No bundle hash could be computed: ${bounded(refused, MAX_REPORTED_LENGTH)}.`
            : 'No bundle hash could be computed.',
        ),
    hash && stated !== undefined && stated !== hash
      ? el(
          'p',
          { id: 'stated-hash' },
          badge('fail'),
          ' The bundle states bundle_hash ',
          bundleHashEl(stated, 80),
          ', which does not match its content. The hash above is computed in this browser; it is the one looked up in the log.',
        )
      : null,
    log,
  );
  const logUrl = settings.config.log_url;
  if (!hash || !run.live()) return panel;
  if (!logUrl) {
    log.append(
      'No transparency log is configured for this console (CONSOLE_LOG_URL), so inclusion is not checked.',
    );
    return panel;
  }
  log.textContent = `Checking ${logUrl}…`;
  // P61: the operator's witnesses for this log, from the service's config route (none: no quorum checked).
  const witnessKeys = settings.config.log_witnesses;
  const witnesses = Array.isArray(witnessKeys)
    ? { keys: witnessKeys, quorum: settings.config.log_witness_quorum ?? witnessKeys.length }
    : undefined;
  checkBundleInLog(logUrl, hash, witnesses, run.signal)
    .then((outcome) => {
      if (!run.live()) return;
      clear(log).append(badge(outcome.state), ' ', visible(outcome.message));
      log.dataset.state = outcome.state;
    })
    .catch((error) => {
      if (!run.live()) return; // aborted with its generation
      clear(log).append(badge('fail'), visible(` Could not check the log: ${error.message}`));
      log.dataset.state = 'error';
    });
  return panel;
}

async function takeFile(file) {
  if (!file) return;
  // A new bundle: whatever was shown or under way was about the previous one.
  const run = nextRun();
  chosen = undefined;
  clear(result);
  $('#verify-button').disabled = false;
  // P158: a file is read whole, then decoded and parsed, at several times its size; a file far beyond what the
  // service reads is refused by its size alone. JSON goes out re-serialised (pretty-printing removed), so a
  // file may be larger than the body the service takes; four times that leaves room for any indentation.
  const limit = Number.isSafeInteger(settings.config.max_body_bytes)
    ? settings.config.max_body_bytes
    : DEFAULT_MAX_BODY_BYTES;
  if (file.size > FILE_SIZE_FACTOR * limit) {
    status.textContent = visible(
      `File ${file.name} is too large (${file.size} bytes): this service reads bundles of up to ${limit} bytes.`,
    );
    return;
  }
  status.textContent = visible(`Reading ${file.name}…`);
  $('#verify-button').disabled = true;
  const bytes = new Uint8Array(await file.arrayBuffer());
  // Another file, Clear or an edit came first: this one is no longer the page's bundle.
  if (!run.live()) return;
  $('#verify-button').disabled = false;
  chosen = { name: file.name, bytes };
  status.textContent = visible(`File ${file.name} (${chosen.bytes.length} bytes) ready: press Verify.`);
}

fileInput.addEventListener('change', () => takeFile(fileInput.files?.[0]));
text.addEventListener('input', () => {
  // The bundle changed under the result: a verdict shown or being drawn was about the text before the edit.
  const busy = $('#verify-button').disabled || result.hasChildNodes();
  nextRun();
  chosen = undefined;
  fileInput.value = '';
  $('#verify-button').disabled = false;
  if (busy) {
    clear(result);
    status.textContent = 'The bundle changed: press Verify to check it.';
  }
});
dropzone.addEventListener('dragover', (event) => {
  event.preventDefault();
  dropzone.classList.add('over');
});
dropzone.addEventListener('dragleave', () => dropzone.classList.remove('over'));
dropzone.addEventListener('drop', (event) => {
  event.preventDefault();
  dropzone.classList.remove('over');
  takeFile(event.dataTransfer?.files?.[0]);
});
$('#verify-button').addEventListener('click', verify);
$('#clear-button').addEventListener('click', () => {
  nextRun();
  $('#verify-button').disabled = false;
  text.value = '';
  fileInput.value = '';
  chosen = undefined;
  status.textContent = '';
  clear(result);
});
boot().then(() => {
  document.body.dataset.ready = 'true';
});
