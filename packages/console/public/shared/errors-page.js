// Renders the error-code reference the verify page links each failure to (one anchor per code).
// Issue 17 item 1 ("linked to the docs"); the table is the EXPLANATIONS registry of errors.js.
import { EXPLANATIONS } from './errors.js';
import { el } from './ui.js';

const body = document.querySelector('#codes tbody');
for (const [number, [title, text]] of Object.entries(EXPLANATIONS).sort(
  ([a], [b]) => Number(a) - Number(b),
)) {
  const digits = String(number).padStart(3, '0');
  body.append(
    el(
      'tr',
      { id: `E${digits}` },
      el('td', {}, el('code', {}, `E${digits}`)),
      el('td', {}, title),
      el('td', {}, text),
    ),
  );
}
if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
