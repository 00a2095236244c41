// A throwaway Prometheus for the soak: scrapes the four services every 3 s and evaluates the repo's alert
// rules with their `for:` durations compressed, so each fault's alert can fire within a short soak (issue 16 item 5).
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from '@proto/testing';
import { SERVICE_NAMES, type Stack } from './stack.ts';

const RULES = fileURLToPath(
  new URL('../../deploy/monitoring/rules/signed-bundles.rules.yml', import.meta.url),
);

/** The rules file as shipped, except every `for:` becomes `forSeconds` (the expressions are untouched). */
export function compressedRules(forSeconds: number): string {
  return readFileSync(RULES, 'utf8').replace(/^(\s+for:\s*)\S+\s*$/gm, `$1${forSeconds}s`);
}

export class SoakPrometheus {
  private child?: ChildProcess;
  url = '';

  private readonly workDir: string;

  constructor(workDir: string) {
    this.workDir = workDir;
  }

  async start(stack: Stack, forSeconds: number): Promise<void> {
    const dir = join(this.workDir, 'prometheus');
    mkdirSync(join(dir, 'data'), { recursive: true });
    writeFileSync(join(dir, 'rules.yml'), compressedRules(forSeconds));
    const jobs = SERVICE_NAMES.map(
      (name) =>
        `  - job_name: ${name}\n    static_configs:\n      - targets: ["127.0.0.1:${stack.services.get(name)!.port}"]`,
    ).join('\n');
    writeFileSync(
      join(dir, 'prometheus.yml'),
      `global:\n  scrape_interval: 3s\n  scrape_timeout: 3s\n  evaluation_interval: 1s\nrule_files:\n  - ${join(dir, 'rules.yml')}\nscrape_configs:\n${jobs}\n`,
    );
    const port = await freePort();
    this.url = `http://127.0.0.1:${port}`;
    const log = createWriteStream(join(this.workDir, 'prometheus.log'));
    this.child = spawn(
      process.env['PROMETHEUS'] ?? 'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--storage.tsdb.retention.time=1d',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child.stdout?.pipe(log);
    this.child.stderr?.pipe(log);
    // A refused connection: still starting.
    const ready = () =>
      fetch(`${this.url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      );
    await waitFor(ready, 30_000, `Prometheus to start (log: ${this.workDir}/prometheus.log)`, 250);
  }

  /** True when the alert series matching `selector` was firing at some point in [from, to] (unix seconds). */
  async firedBetween(selector: string, from: number, to: number): Promise<boolean> {
    const query = `ALERTS{alertstate="firing",${selector}}`;
    const params = new URLSearchParams({ query, start: String(from), end: String(to), step: '1' });
    const response = await fetch(`${this.url}/api/v1/query_range?${params}`);
    const body = (await response.json()) as { data?: { result?: unknown[] } };
    return (body.data?.result?.length ?? 0) > 0;
  }

  /** Every alert name that fired in [from, to], for the report. */
  async alertsBetween(from: number, to: number): Promise<string[]> {
    const params = new URLSearchParams({
      query: 'ALERTS{alertstate="firing"}',
      start: String(from),
      end: String(to),
      step: '1',
    });
    const response = await fetch(`${this.url}/api/v1/query_range?${params}`);
    const body = (await response.json()) as { data?: { result?: Array<{ metric: Record<string, string> }> } };
    const names = (body.data?.result ?? []).map(
      (r) =>
        `${r.metric['alertname']}{${r.metric['job'] ?? ''}${r.metric['dependency'] ? `,${r.metric['dependency']}` : ''}}`,
    );
    return [...new Set(names)].sort();
  }

  /** The first series of `query` over [from, to] (unix seconds), as [unix seconds, value] pairs. */
  async range(query: string, from: number, to: number, step = 2): Promise<Array<[number, number]>> {
    const params = new URLSearchParams({ query, start: String(from), end: String(to), step: String(step) });
    const response = await fetch(`${this.url}/api/v1/query_range?${params}`);
    const body = (await response.json()) as {
      data?: { result?: Array<{ values: Array<[number, string]> }> };
    };
    return (body.data?.result?.[0]?.values ?? []).map(([t, v]) => [t, Number(v)]);
  }

  killNow(): void {
    this.child?.kill('SIGKILL');
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}
