// Renders deploy/kubernetes/base/prometheusrule.yaml from the plain rules file, so the Prometheus Operator gets exactly
// the groups promtool tests: `pnpm exec node deploy/monitoring/prometheusrule.ts`. Issue 16 item 4.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RULES_FILE = fileURLToPath(new URL('rules/signed-bundles.rules.yml', import.meta.url));
export const MANIFEST_FILE = fileURLToPath(
  new URL('../kubernetes/base/prometheusrule.yaml', import.meta.url),
);

const HEADER = `# Generated from deploy/monitoring/rules/signed-bundles.rules.yml by deploy/monitoring/prometheusrule.ts: edit the
# rules file, then run \`pnpm exec node deploy/monitoring/prometheusrule.ts\` (a test fails when they differ).
# Runbooks: docs/operations.md.
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: signed-bundles
  labels:
    app.kubernetes.io/part-of: signed-bundles
spec:
`;

/** The manifest for a rules file: its `groups:` block, indented under `spec:`. */
export function renderPrometheusRule(rulesText: string): string {
  const lines = rulesText.split('\n');
  const start = lines.findIndex((line) => line.startsWith('groups:'));
  if (start < 0) throw new Error('the rules file has no top-level groups:');
  const body = lines
    .slice(start)
    .map((line) => (line === '' ? '' : `  ${line}`))
    .join('\n');
  return HEADER + body;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(MANIFEST_FILE, renderPrometheusRule(readFileSync(RULES_FILE, 'utf8')));
}
