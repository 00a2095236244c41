// Summarises the .cpuprofile files `BENCH_CPU_PROF=dir pnpm bench` leaves behind: self time per
// function, per thread, heaviest first. Issue 14 item 1 (profile evidence for the overhead).
// Usage: node bench/profile-summary.ts DIR [top=20]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly hitCount?: number;
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const [dir, topText] = process.argv.slice(2);
if (!dir) throw new Error('usage: node bench/profile-summary.ts DIR [top]');
const top = Number(topText ?? 20);

for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (!node) return;
    const delta = profile.timeDeltas[i] ?? 0;
    total += delta;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url
      ? `${url.replace(/^.*\/(node_modules|packages|services)\//, '$1/')}:${lineNumber + 1}`
      : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    selfUs.set(key, (selfUs.get(key) ?? 0) + delta);
  });
  const idle = selfUs.get('(idle)') ?? 0;
  console.log(
    `\n${file}: ${(total / 1e6).toFixed(1)} s sampled, idle ${((100 * idle) / Math.max(total, 1)).toFixed(0)} %`,
  );
  const rows = [...selfUs].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [name, us] of rows) {
    console.log(`${((100 * us) / Math.max(total, 1)).toFixed(1).padStart(6)} %  ${name}`);
  }
}
