// How `proto verify` shows a /verify response: the JSON itself for scripts (--json, or output not a terminal),
// a short readable report on a terminal. Issue 13 item 7; the JSON is exactly POST /verify's (SPEC.md, D12).
import type { CliIo } from './io.ts';

interface VerdictLike {
  readonly verified: boolean;
  readonly version: string;
  readonly resolved_tier?: string;
  readonly checks: Readonly<Record<string, string | undefined>>;
  readonly warnings?: readonly string[];
  readonly error_details?: readonly {
    code: string;
    check?: string;
    message: string;
    retryable?: boolean;
  }[];
  readonly errors?: readonly string[];
}

/** True when the caller asked for JSON, or nobody is reading on a terminal (pipes and files keep JSON). */
export function wantsJson(values: Readonly<Record<string, unknown>>, io: CliIo): boolean {
  return values['json'] === true || io.isTerminal !== true;
}

/**
 * Characters a terminal acts on or hides instead of showing: every control (line feed, carriage return and ESC
 * included: a message is one line), format characters (bidi overrides and isolates, zero-width ones, U+FEFF), lone
 * surrogates, line and paragraph separators. The console's set (P157) with tab, line feed and CR added.
 */
const TERMINAL_HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;

/**
 * P315: `text` as the terminal should show it, each hidden character written out as ⟨U+XXXX⟩. A report line quotes
 * the bundle's own text (a version, ids, member names); raw, its escape sequences could move the cursor and redraw
 * a failed report as VERIFIED.
 */
export function terminalText(text: string): string {
  return text.replace(
    TERMINAL_HIDDEN,
    (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`,
  );
}

export function renderVerdict(response: VerdictLike): string {
  const lines = [
    response.verified ? 'VERIFIED' : 'NOT VERIFIED',
    `  version  ${terminalText(response.version)}`,
    ...(response.resolved_tier === undefined ? [] : [`  tier     ${terminalText(response.resolved_tier)}`]),
    '  checks',
  ];
  const width = Math.max(0, ...Object.keys(response.checks).map((name) => terminalText(name).length));
  for (const [name, status] of Object.entries(response.checks)) {
    if (status !== undefined) lines.push(`    ${terminalText(name).padEnd(width)}  ${terminalText(status)}`);
  }
  const details = response.error_details ?? [];
  if (details.length > 0) {
    lines.push('  errors');
    for (const detail of details) {
      lines.push(
        `    ${terminalText(detail.code)}${detail.check === undefined ? '' : ` (${terminalText(detail.check)})`}: ${terminalText(detail.message)}${
          detail.retryable === true ? ' (retryable)' : ''
        }`,
      );
    }
    // P194: when every failure is a source that could not answer, the verdict is not the bundle's last word.
    if (details.every((detail) => detail.retryable === true)) {
      lines.push('  could not be decided now: asking again later may pass');
    }
  } else if ((response.errors ?? []).length > 0) {
    lines.push('  errors', ...(response.errors ?? []).map((error) => `    ${terminalText(error)}`));
  }
  for (const warning of response.warnings ?? []) lines.push(`  warning: ${terminalText(warning)}`);
  return `${lines.join('\n')}\n`;
}
