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

export function renderVerdict(response: VerdictLike): string {
  const lines = [
    response.verified ? 'VERIFIED' : 'NOT VERIFIED',
    `  version  ${response.version}`,
    ...(response.resolved_tier === undefined ? [] : [`  tier     ${response.resolved_tier}`]),
    '  checks',
  ];
  const width = Math.max(0, ...Object.keys(response.checks).map((name) => name.length));
  for (const [name, status] of Object.entries(response.checks)) {
    if (status !== undefined) lines.push(`    ${name.padEnd(width)}  ${status}`);
  }
  const details = response.error_details ?? [];
  if (details.length > 0) {
    lines.push('  errors');
    for (const detail of details) {
      lines.push(
        `    ${detail.code}${detail.check === undefined ? '' : ` (${detail.check})`}: ${detail.message}${
          detail.retryable === true ? ' (retryable)' : ''
        }`,
      );
    }
    // P194: when every failure is a source that could not answer, the verdict is not the bundle's last word.
    if (details.every((detail) => detail.retryable === true)) {
      lines.push('  could not be decided now: asking again later may pass');
    }
  } else if ((response.errors ?? []).length > 0) {
    lines.push('  errors', ...(response.errors ?? []).map((error) => `    ${error}`));
  }
  for (const warning of response.warnings ?? []) lines.push(`  warning: ${warning}`);
  return `${lines.join('\n')}\n`;
}
