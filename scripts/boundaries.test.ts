// Proves that `pnpm lint:deps` (dependency-cruiser, .dependency-cruiser.cjs) fails on a new leak across the house's
// arrows and passes on the tree as it is. docs/architecture.md §1 (dependency rules), issue 13 item 1.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

function cruise(paths: readonly string[]): { status: number | null; output: string } {
  const run = spawnSync(
    'pnpm',
    ['exec', 'depcruise', ...paths, '--config', '.dependency-cruiser.cjs', '--output-type', 'err'],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** Writes a probe module at `relativePath`, cruises it alone and removes it again. */
function cruiseProbe(directory: string, source: string): { status: number | null; output: string } {
  const relativePath = `${directory}/boundary-probe-${randomBytes(4).toString('hex')}.ts`;
  writeFileSync(`${ROOT}${relativePath}`, source);
  try {
    return cruise([relativePath]);
  } finally {
    rmSync(`${ROOT}${relativePath}`, { force: true });
  }
}

describe('dependency boundaries (pnpm lint:deps)', () => {
  it('fails when the CLI imports a service', () => {
    const result = cruiseProbe(
      'packages/cli/src',
      "export { buildVerificationApp } from '../../../services/verification/src/app.ts';\n",
    );
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('cli-imports-core-and-clients-only');
  });

  it('fails when the CLI imports the service kit (and with it Fastify and Redis)', () => {
    const result = cruiseProbe('packages/cli/src', "export { createService } from '@proto/service-kit';\n");
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('cli-imports-core-and-clients-only');
  });

  it('fails when core imports a framework or a service', () => {
    const framework = cruiseProbe('packages/core/src', "export { fastify } from 'fastify';\n");
    expect(framework.status).not.toBe(0);
    expect(framework.output).toContain('core-is-pure');
    const service = cruiseProbe(
      'packages/core/src',
      "export * from '../../../services/transparency-log/src/tree.ts';\n",
    );
    expect(service.status).not.toBe(0);
    expect(service.output).toContain('core-is-pure');
  });

  it('fails when a service imports another service or reaches into a package by path', () => {
    const other = cruiseProbe('services/anchor/src', "export * from '@proto/transparency-log';\n");
    expect(other.status).not.toBe(0);
    expect(other.output).toContain('services-never-import-each-other');
    const byPath = cruiseProbe(
      'services/anchor/src',
      "export * from '../../../packages/core/src/profile.ts';\n",
    );
    expect(byPath.status).not.toBe(0);
    expect(byPath.output).toContain('no-reaching-into-another-package-by-path');
  });

  it('fails when production code imports the test-support package', () => {
    const result = cruiseProbe('packages/core/src', "export { jcs } from '@proto/testing';\n");
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('production-code-never-imports-test-support');
  });

  it('fails (Biome noProcessEnv) when core reads process.env', () => {
    const relativePath = `packages/core/src/boundary-probe-${randomBytes(4).toString('hex')}.ts`;
    writeFileSync(`${ROOT}${relativePath}`, "export const level = process.env['LOG_LEVEL'];\n");
    try {
      const run = spawnSync('pnpm', ['exec', 'biome', 'lint', relativePath], { cwd: ROOT, encoding: 'utf8' });
      expect(run.status).not.toBe(0);
      expect(`${run.stdout}${run.stderr}`).toContain('noProcessEnv');
    } finally {
      rmSync(`${ROOT}${relativePath}`, { force: true });
    }
  });

  it('passes on a module that keeps to the arrows', () => {
    const result = cruiseProbe('packages/cli/src', "export { DEFAULT_PROFILE } from '@proto/core';\n");
    expect(result.output).toContain('no dependency violations');
    expect(result.status).toBe(0);
  });

  it('passes on the repository as it is', () => {
    const result = cruise(['packages', 'services', 'bench', 'scripts']);
    expect(result.output).toContain('no dependency violations');
    expect(result.status).toBe(0);
  });
});
