// The log explorer: latest signed checkpoint (signature checked here), entries with paging, look-up, and an
// inclusion proof verified in the browser and drawn as the path it climbs. Issue 17 item 2; D18; RFC 9162.
import { fromBase64, toHex } from '../shared/bytes.js';
import { proveEntry, signedCheckpoint } from '../shared/inclusion.js';
import {
  badge,
  bounded,
  bundleHashEl,
  clear,
  el,
  facts,
  getJson,
  identifier,
  isBundleHash,
  isLogIndex,
  logIndexEl,
  malformed,
  relative,
  short,
  textOf,
  timeEl,
} from '../shared/ui.js';

const PAGE = 10;
const HEX32 = /^[0-9a-f]{64}$/;
const $ = (selector) => document.querySelector(selector);
let current; // {summary, signature, checkpoint}
let pageEnd; // exclusive end index of the page shown (newest first)

/**
 * Runs of one kind of work (a look-up, the entries page, the proof panel): starting one aborts the previous
 * one's requests and makes it draw nothing, so answers arriving out of order cannot put an older look-up's
 * result over a newer one's (P171, as P163 on the verify page). A run started inside another (the page and
 * proof a look-up opens) also ends when its parent does.
 */
function runs() {
  let controller = new AbortController();
  let generation = 0;
  return (parent) => {
    controller.abort();
    controller = new AbortController();
    generation += 1;
    const id = generation;
    const own = { signal: controller.signal, live: () => id === generation };
    if (!parent) return own;
    return {
      signal: AbortSignal.any([own.signal, parent.signal]),
      live: () => own.live() && parent.live(),
    };
  };
}
const nextLookup = runs();
const nextPage = runs();
const nextProof = runs();
async function loadCheckpoint(run) {
  const box = $('#checkpoint');
  let latest;
  try {
    latest = await signedCheckpoint('', run.signal);
  } catch (error) {
    if (!run.live()) return;
    clear(box).append(el('p', {}, `No signed checkpoint yet: ${error.message}`));
    return;
  }
  if (!run.live()) return;
  current = latest;
  const { summary, signature, checkpoint } = current;
  clear(box).append(
    el(
      'p',
      { id: 'checkpoint-signature' },
      badge(signature.ok ? 'valid' : 'INVALID'),
      ' ',
      signature.ok
        ? 'Checkpoint signature verified in this browser (Ed25519, WebCrypto) against the key below.'
        : `Checkpoint signature does not verify: ${signature.reason}.`,
    ),
    facts([
      // P181: without a parsed checkpoint these come from the summary, unchecked by any signature: marked if odd.
      ['Origin', checkpoint ? el('code', {}, checkpoint.origin) : identifier(summary.origin)],
      [
        'Tree size',
        checkpoint
          ? String(checkpoint.size)
          : isLogIndex(summary.tree_size)
            ? String(summary.tree_size)
            : malformed(summary.tree_size, 'not a tree size'),
      ],
      [
        'Root',
        checkpoint
          ? el('code', { id: 'checkpoint-root' }, toHex(checkpoint.root))
          : typeof summary.root === 'string' && HEX32.test(summary.root)
            ? el('code', { id: 'checkpoint-root' }, summary.root)
            : malformed(summary.root, 'not 64 lowercase hex'),
      ],
      [
        'Signed',
        summary.timestamp
          ? el(
              'span',
              {},
              timeEl(summary.timestamp),
              ` · age ${relative(summary.timestamp).replace(' ago', '')}`,
            )
          : '—',
      ],
      ['Verifier keys', verifierKeys(summary.verifier_keys)],
      [
        'Signatures',
        el(
          'div',
          {},
          signature.results.map((r) => el('div', {}, badge(r.status), ' ', r.name)),
        ),
      ],
    ]),
  );
}

/** A log has two keys (Ed25519 and ML-DSA-65); past this many the answer is plainly not a log's (P158). */
const MAX_VERIFIER_KEYS = 8;
/** Longer than any verifier key we sign with (ML-DSA-65: about 2,620 characters; ML-DSA-87: 3,470). */
const MAX_VERIFIER_KEY_CHARS = 4000;

/** The log's verifier keys, each folded to one line (P179); a bounded number of them. */
function verifierKeys(keys) {
  const list = Array.isArray(keys) ? keys : [];
  return el(
    'div',
    {},
    list.slice(0, MAX_VERIFIER_KEYS).map(verifierKeyLine),
    list.length > MAX_VERIFIER_KEYS
      ? el('p', { class: 'muted' }, `and ${list.length - MAX_VERIFIER_KEYS} more keys, not drawn`)
      : null,
  );
}

/** The key type a signed-note verifier key names in its first byte (0xFF: our ML-DSA-65, see core's note.ts). */
function keyType(key) {
  const type = fromBase64(key)?.[0];
  if (type === 0x01) return 'Ed25519';
  if (type === 0xff) return 'ML-DSA-65 (checked by `proto log verify`, not in the browser)';
  return 'unknown key type';
}

/**
 * A verifier key (name+id+key) shown by name, id and type; the key itself only when opened, since an ML-DSA key
 * runs to 2,600 characters (P179).
 */
function verifierKeyLine(vkey) {
  const text = typeof vkey === 'string' ? vkey : textOf(vkey);
  const [, name, id, key = ''] = /^([^+]{1,200})\+([0-9a-f]{8})\+(.*)$/s.exec(text) ?? [];
  const summary =
    name === undefined
      ? [el('code', {}, bounded(text, 40)), ' · not a verifier key']
      : [identifier(name), el('code', {}, `+${id}`), ` · ${keyType(key)}`];
  return el(
    'details',
    { class: 'vkey' },
    el('summary', {}, summary),
    el('code', { class: 'vkey-full' }, bounded(text, MAX_VERIFIER_KEY_CHARS)),
  );
}

async function loadPage(end, parent) {
  const run = nextPage(parent);
  try {
    await drawPage(end, run);
  } catch (error) {
    if (run.live()) throw error; // an ended run's aborted request is not a failure
  }
}

/**
 * The entries page, within the size of the verified signed checkpoint (P186): `/root` is the log's word alone,
 * and a size far beyond what it signed (2^53 − 1 against 10) paged to a range the log then refused. `/root` is
 * still asked, so that a log whose two answers disagree is said to.
 */
async function drawPage(end, run) {
  let claimed;
  try {
    claimed = (await getJson('/root', { signal: run.signal })).body?.tree_size;
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    claimed = undefined; // no word from /root: nothing to compare, the signed size still bounds the page
  }
  if (!run.live()) return;
  const signed = current?.signature?.ok ? current.checkpoint : undefined;
  sizeNote(claimed, signed?.size);
  if (!signed) {
    clear($('#entries tbody')).append(
      el(
        'tr',
        {},
        el(
          'td',
          { colspan: 4, class: 'muted' },
          'Not listed: there is no verified signed checkpoint, and entries are listed only up to the size one signs.',
        ),
      ),
    );
    $('#page-status').textContent = '';
    $('#newer').disabled = true;
    $('#older').disabled = true;
    return;
  }
  const total = signed.size;
  const shownEnd = Math.max(0, Math.min(end ?? total, total));
  const start = Math.max(0, shownEnd - PAGE);
  const { status, body: page } = await getJson(`/entries?start=${start}&end=${shownEnd}`, {
    signal: run.signal,
  });
  if (!run.live()) return;
  pageEnd = shownEnd;
  const tbody = clear($('#entries tbody'));
  if (status !== 200) {
    tbody.append(el('tr', {}, el('td', { colspan: 4 }, page?.error?.message ?? `error ${status}`)));
    return;
  }
  const rows = [...(page.entries ?? [])].reverse();
  if (rows.length === 0)
    tbody.append(el('tr', {}, el('td', { colspan: 4, class: 'muted' }, 'The log is empty.')));
  for (const entry of rows) tbody.append(entryRow(entry));
  $('#page-status').textContent =
    total === 0 ? '' : `Entries ${start}–${pageEnd - 1} of ${total} (signed checkpoint)`;
  $('#newer').disabled = pageEnd >= total;
  $('#older').disabled = start === 0;
}

/**
 * The table's note when `/root` and the signed checkpoint disagree (P186): a `/root` ahead is normal for a moment
 * (entries not signed yet) and absurd by 2^53; one behind contradicts the log's own signature. Either way the
 * page lists what was signed and says what `/root` claimed. A malformed claim is marked as P181 marked it.
 */
function sizeNote(claimed, signedSize) {
  const note = clear($('#entries-note'));
  note.hidden = signedSize === undefined || claimed === undefined || claimed === signedSize;
  if (note.hidden) return;
  if (!isLogIndex(claimed)) {
    note.append(
      "The log's /root answered a malformed tree size: ",
      malformed(claimed, 'not a tree size'),
      `. Its signed checkpoint covers ${signedSize}: those entries are listed.`,
    );
  } else if (claimed > signedSize) {
    note.append(
      `The log's /root says it holds ${claimed} entries; its signed checkpoint covers ${signedSize}. ` +
        `Only those ${signedSize} are listed: entries no checkpoint has signed yet are not shown.`,
    );
  } else {
    note.append(
      `The log's /root says it holds ${claimed} entries, but its signed checkpoint covers ${signedSize}: ` +
        `the log contradicts its own signature. The ${signedSize} signed entries are listed.`,
    );
  }
}

/**
 * One entry as the log sent it. Its hash and index are drawn as what they are, or marked if they are not (P179);
 * an entry whose hash or index is malformed cannot be proved, so its button is off and says why.
 */
function entryRow(entry) {
  const index = entry?.log_index;
  const hash = entry?.bundle_hash;
  const provable = isLogIndex(index) && isBundleHash(hash);
  const button = el(
    'button',
    {
      type: 'button',
      class: 'secondary',
      disabled: !provable,
      'aria-label': provable ? `Verify proof of entry ${index}` : 'Cannot verify a malformed entry',
    },
    provable ? 'Verify proof' : 'Malformed',
  );
  if (provable) button.addEventListener('click', () => showProof(index, hash));
  return el(
    'tr',
    { 'data-index': isLogIndex(index) ? String(index) : undefined },
    el('td', {}, logIndexEl(index)),
    el('td', {}, bundleHashEl(hash)),
    el('td', { class: 'wide-only' }, entry?.timestamp ? timeEl(entry.timestamp) : '—'),
    el('td', {}, button),
  );
}

async function showProof(index, bundleHash, parent) {
  const run = nextProof(parent);
  const box = clear($('#proof'));
  box.append(el('p', {}, `Checking entry #${index}…`));
  await loadCheckpoint(run);
  if (!run.live()) return;
  const checkpoint = current?.checkpoint;
  if (!checkpoint || !current.signature.ok) {
    clear(box).append(el('p', {}, badge('fail'), ' No verified checkpoint to check against.'));
    return;
  }
  if (index >= checkpoint.size) {
    clear(box).append(
      el(
        'p',
        {},
        badge('warn'),
        ` Entry #${index} is not yet covered by a signed checkpoint (size ${checkpoint.size}); try again shortly.`,
      ),
    );
    return;
  }
  try {
    const proof = await proveEntry('', index, bundleHash, checkpoint, run.signal);
    if (!run.live()) return;
    clear(box).append(
      el(
        'p',
        { id: 'proof-result', 'data-ok': String(proof.ok) },
        badge(proof.ok ? 'valid' : 'INVALID'),
        ` Entry #${index} in the signed tree of ${checkpoint.size}: ${proof.reason}.`,
      ),
      facts([
        ['Bundle hash', el('code', {}, bundleHash)],
        ['Leaf hash', el('code', {}, toHex(proof.leaf))],
        ['Proof length', String(proof.proof.length)],
        ['Computed root', el('code', {}, proof.computedRoot ? toHex(proof.computedRoot) : '—')],
        ['Checkpoint root', el('code', {}, toHex(checkpoint.root))],
      ]),
      drawClimb(proof, checkpoint),
    );
  } catch (error) {
    if (!run.live()) return;
    clear(box).append(el('p', {}, badge('fail'), ` ${error.message}`));
  }
  $('#proof-panel').scrollIntoView({ block: 'nearest' });
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The climb, bottom to top: the path node in the middle column, each sibling left or right of it. */
function drawClimb(proof, checkpoint) {
  const rows = proof.steps.length + 1;
  const rowH = 56;
  const width = 560;
  const height = rows * rowH + 20;
  const box = { w: 150, h: 30 };
  const centerX = width / 2;
  const yOf = (level) => height - 20 - level * rowH - box.h;
  const root = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    class: 'proof-tree',
    role: 'img',
    'aria-labelledby': 'climb-title',
  });
  root.append(
    svg(
      'title',
      { id: 'climb-title' },
      `Inclusion path of entry ${proof.index}: ${proof.steps.length} sibling hashes from the leaf up to the root`,
    ),
  );
  const node = (x, y, cls, label, hash) => {
    root.append(svg('rect', { x: x - box.w / 2, y, width: box.w, height: box.h, rx: 6, class: cls }));
    root.append(svg('text', { x: x, y: y + 13, 'text-anchor': 'middle' }, label));
    root.append(svg('text', { x: x, y: y + 25, 'text-anchor': 'middle' }, short(toHex(hash), 8)));
  };
  node(centerX, yOf(0), 'node-path', `leaf #${proof.index}`, proof.leaf);
  proof.steps.forEach((step, i) => {
    const y = yOf(i + 1);
    const siblingX = step.side === 'left' ? centerX - 190 : centerX + 190;
    root.append(svg('line', { x1: centerX, y1: yOf(i), x2: centerX, y2: y + box.h }));
    root.append(svg('line', { x1: siblingX, y1: yOf(i) + box.h / 2, x2: centerX, y2: y + box.h }));
    node(siblingX, yOf(i), 'node-sibling', `sibling (${step.side})`, step.sibling);
    const last = i === proof.steps.length - 1;
    node(
      centerX,
      y,
      last ? (proof.ok ? 'node-root' : 'node-bad') : 'node-path',
      last ? `root, size ${checkpoint.size}` : `level ${i + 1}`,
      step.hash,
    );
  });
  return root;
}

$('#lookup-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  // Started before the hash is even checked: an earlier look-up still on its way must not write over this one.
  const run = nextLookup();
  const hash = $('#lookup-hash').value.trim();
  const out = $('#lookup-status');
  if (!isBundleHash(hash)) {
    out.textContent = 'Enter a bundle hash as sha256:<64 lowercase hex>.';
    return;
  }
  out.textContent = `Looking up ${hash}…`;
  try {
    const { status, body } = await getJson(`/lookup?bundle_hash=${encodeURIComponent(hash)}`, {
      signal: run.signal,
    });
    if (!run.live()) return;
    if (status === 404) {
      out.textContent = 'Not in the log.';
      return;
    }
    if (status !== 200) {
      out.textContent = body?.error?.message ?? `error ${status}`;
      return;
    }
    if (!isLogIndex(body?.log_index)) {
      // A hostile or broken log: nothing to page to or prove (P179).
      out.textContent = `The log answered with ${bounded(textOf(body?.log_index), 120)}, which is not an index.`;
      return;
    }
    out.textContent = `Found at index ${body.log_index}, sequenced ${bounded(textOf(body.timestamp), 120)}.`;
    await loadPage(body.log_index + 1, run);
    await showProof(body.log_index, hash, run);
  } catch (error) {
    if (run.live() && error?.name !== 'AbortError') out.textContent = `The look-up failed: ${error.message}`;
  }
});
$('#older').addEventListener('click', () => loadPage(Math.max(PAGE, pageEnd - PAGE)).catch(pageFailed));
$('#newer').addEventListener('click', () => loadPage(pageEnd + PAGE).catch(pageFailed));

/** A page load that failed: said in the pager, unless a newer one aborted it. */
function pageFailed(error) {
  if (error?.name !== 'AbortError')
    $('#page-status').textContent = `Could not load entries: ${error.message}`;
}

loadCheckpoint(nextProof())
  .then(() => loadPage())
  .catch(pageFailed)
  .finally(() => {
    document.body.dataset.ready = 'true';
  });
