// DOM helpers shared by the console pages: element building without innerHTML, times and ages, copy buttons.
// Issue 17 item 4: no inline script or style (CSP), text always inserted as text (no markup injection).

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === 'class') node.className = value;
    else if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

/** "3 min ago" / "in 2 h": a signed duration in plain words. */
export function relative(iso, now = Date.now()) {
  const at = Date.parse(iso);
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
  return el('time', { datetime: iso, title: iso }, `${iso} (${relative(iso)})`);
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
  return el('span', { class: `badge badge-${status.replace(/[^a-z_]/gi, '')}` }, status);
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
  const text = String(hash);
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
