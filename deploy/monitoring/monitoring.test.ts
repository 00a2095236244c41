// Checks the monitoring deliverables against the code: the PrometheusRule manifest is the promtool-tested rules file,
// the Grafana dashboards are well-formed dashboard JSON, and every metric a panel or rule names is one a service
// exports (registered in the sources, or a default process metric). Issue 16 item 4.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ServiceMetrics } from '../../packages/service-kit/src/metrics.ts';
import { DASHBOARDS } from './build-dashboards.ts';
import { MANIFEST_FILE, RULES_FILE, renderPrometheusRule } from './prometheusrule.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DASHBOARD_DIR = fileURLToPath(new URL('grafana/dashboards/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    // scripts/boundaries.test.ts writes boundary-probe-*.ts modules into packages/ and services/ for a
    // moment; with test files in parallel (P104) one can be listed here and gone before it is read.
    if (entry.name.startsWith('boundary-probe-')) return [];
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every series name the services can export: `proto_` + each registered metric (with histogram series), plus defaults. */
async function exportedMetricNames(): Promise<Set<string>> {
  const names = new Set<string>(['up']);
  const call = /\.(counter|gauge|histogram)(?:<[^>]*>)?\(\s*'([a-z][a-z0-9_]*)'/g;
  for (const file of [...sourceFiles(join(ROOT, 'packages')), ...sourceFiles(join(ROOT, 'services'))]) {
    for (const match of readFileSync(file, 'utf8').matchAll(call)) {
      const name = `proto_${match[2]}`;
      names.add(name);
      if (match[1] === 'histogram')
        for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    }
  }
  // The default process and Node.js metrics, as the real registry exports them.
  for (const metric of await new ServiceMetrics().registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix);
  }
  return names;
}

const PROMQL_WORDS = new Set([
  'sum',
  'by',
  'rate',
  'increase',
  'deriv',
  'histogram_quantile',
  'time',
  'and',
  'or',
  'unless',
  'without',
  'le',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'avg',
  'max',
  'min',
  'count',
  'abs',
  'humanizeDuration',
]);

/** Metric names in a PromQL expression: identifiers not in a label matcher, not functions or keywords. */
function metricsIn(expr: string): string[] {
  const withoutMatchers = expr
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/"[^"]*"/g, '');
  const withoutGroupings = withoutMatchers.replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, '');
  return [...withoutGroupings.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)]
    .map((m) => m[0])
    .filter((word) => !PROMQL_WORDS.has(word) && !/^\d/.test(word));
}

describe('alert rules', () => {
  const rules = readFileSync(RULES_FILE, 'utf8');

  it('the PrometheusRule manifest is generated from the rules file, unchanged', () => {
    expect(readFileSync(MANIFEST_FILE, 'utf8')).toBe(renderPrometheusRule(rules));
  });

  it('every rule names metrics the services export and links a runbook section of docs/operations.md', async () => {
    const exported = await exportedMetricNames();
    const operations = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
    const anchors = new Set(
      [...operations.matchAll(/^#{2,4} (.+)$/gm)].map((m) =>
        (m[1] as string)
          .trim()
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    const alerts = [...rules.matchAll(/- alert: (\w+)\n(?:\s+#.*\n)*\s+expr: (>-\n(?:\s{10,}.*\n)+|.*\n)/g)];
    expect(alerts.length).toBe((rules.match(/- alert: /g) ?? []).length);
    for (const [, alert, expr] of alerts) {
      for (const metric of metricsIn(expr as string))
        expect(exported, `${alert}: ${metric}`).toContain(metric);
      expect(rules).toContain(`runbook: docs/operations.md#${(alert as string).toLowerCase()}`);
      expect(anchors, `docs/operations.md has no section ${alert}`).toContain(
        (alert as string).toLowerCase(),
      );
    }
  });
});

describe('Grafana dashboards', () => {
  const files = readdirSync(DASHBOARD_DIR).filter((f) => f.endsWith('.json'));

  it('one per service plus an overview, each the output of build-dashboards.ts', () => {
    expect(files.sort()).toEqual([
      'anchor.json',
      'overview.json',
      'revocation.json',
      'transparency-log.json',
      'verification.json',
    ]);
    for (const [name, board] of Object.entries(DASHBOARDS)) {
      expect(JSON.parse(readFileSync(join(DASHBOARD_DIR, `${name}.json`), 'utf8'))).toEqual(board);
    }
  });

  it.each(files)('%s is a well-formed dashboard whose queries name exported metrics', async (file) => {
    const exported = await exportedMetricNames();
    const board = JSON.parse(readFileSync(join(DASHBOARD_DIR, file), 'utf8')) as Record<string, unknown>;
    expect(board['uid']).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
    expect(typeof board['title']).toBe('string');
    expect(board['schemaVersion']).toBeGreaterThanOrEqual(30);
    const panels = board['panels'] as Record<string, unknown>[];
    expect(panels.length).toBeGreaterThan(0);
    const ids = new Set<number>();
    for (const panel of panels) {
      expect(typeof panel['id']).toBe('number');
      ids.add(panel['id'] as number);
      expect(['timeseries', 'stat']).toContain(panel['type']);
      expect(typeof panel['title']).toBe('string');
      const grid = panel['gridPos'] as Record<string, number>;
      for (const key of ['x', 'y', 'w', 'h']) expect(Number.isInteger(grid[key])).toBe(true);
      expect(grid['x']! + grid['w']!).toBeLessThanOrEqual(24);
      expect(panel['datasource']).toEqual({ type: 'prometheus', uid: 'prometheus' });
      const targets = panel['targets'] as Record<string, unknown>[];
      expect(targets.length).toBeGreaterThan(0);
      const refIds = targets.map((t) => t['refId']);
      expect(new Set(refIds).size).toBe(refIds.length);
      for (const target of targets) {
        const expr = target['expr'] as string;
        expect(expr.length).toBeGreaterThan(0);
        const metrics = metricsIn(expr);
        expect(metrics.length, `${file} "${panel['title']}": no metric in ${expr}`).toBeGreaterThan(0);
        for (const metric of metrics)
          expect(exported, `${file} "${panel['title']}": ${metric}`).toContain(metric);
      }
    }
    expect(ids.size).toBe(panels.length);
  });

  it('the metric check would catch a misspelt name', async () => {
    expect(await exportedMetricNames()).not.toContain('proto_anchor_backlogg');
    expect(metricsIn('sum by (chain) (rate(proto_anchor_batches_total{outcome="sent"}[5m]))')).toEqual([
      'proto_anchor_batches_total',
    ]);
  });
});
