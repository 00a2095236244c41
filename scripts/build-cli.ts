// `pnpm build:cli`: the `proto` command as one executable file (Node's single executable applications): esbuild
// bundles the CLI with the JSON Schemas embedded, Node writes the SEA blob, postject injects it into a Node copy.
// Issue 13 item 7. Output: dist/cli/proto (plus dist/cli/proto.cjs, the bundle it runs).
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT_DIR = path.join(ROOT, 'dist/cli');
const BUNDLE = path.join(OUT_DIR, 'proto.cjs');
const BLOB = path.join(OUT_DIR, 'proto.blob');
const EXECUTABLE = path.join(OUT_DIR, process.platform === 'win32' ? 'proto.exe' : 'proto');
// The fuse Node's SEA support looks for (documented in Node's single-executable-applications guide).
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const EMBEDDED = 'proto-embedded-schemas';

/** Every schema document of /schemas, keyed `v1/<name>` / `v2/<name>`, as the registry asks for them. */
function schemaDocuments(): Record<string, unknown> {
  const documents: Record<string, unknown> = {};
  for (const version of ['v1', 'v2']) {
    const dir = path.join(ROOT, 'schemas', version);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.schema.json'))) {
      documents[`${version}/${file.slice(0, -'.schema.json'.length)}`] = JSON.parse(
        readFileSync(path.join(dir, file), 'utf8'),
      );
    }
  }
  return documents;
}

/**
 * core's schema registry reads each document from @proto/schemas on disk; a single executable has no such
 * files, so the bundle reads them from an embedded module instead. Fails the build if the registry changed shape.
 */
const embedSchemas: Plugin = {
  name: 'embed-schemas',
  setup(builder) {
    builder.onResolve({ filter: new RegExp(`^${EMBEDDED}$`) }, () => ({
      path: EMBEDDED,
      namespace: EMBEDDED,
    }));
    builder.onLoad({ filter: /.*/, namespace: EMBEDDED }, () => ({
      contents: `export default ${JSON.stringify(schemaDocuments())};`,
      loader: 'js',
    }));
    builder.onLoad({ filter: /packages[\\/]core[\\/]src[\\/]schema[\\/]registry\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const read =
        /const url = locate\(`@proto\/schemas\/\$\{version\}\/\$\{name\}\.schema\.json`\);\n\s*const document = JSON\.parse\(readFileSync\(url, 'utf8'\)\) as Record<string, unknown>;/;
      if (!read.test(source))
        throw new Error(
          'core/src/schema/registry.ts no longer reads schemas the way build-cli.ts embeds them',
        );
      const contents = `import EMBEDDED_SCHEMAS from '${EMBEDDED}';\n${source.replace(
        read,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: source text spliced into the bundle, not a template
        'const document = structuredClone((EMBEDDED_SCHEMAS as Record<string, Record<string, unknown>>)[`${version}/${name}`]) as Record<string, unknown>;',
      )}`;
      return { contents, loader: 'ts' };
    });
  },
};

rmSync(OUT_DIR, { recursive: true, force: true });
mkdirSync(OUT_DIR, { recursive: true });
await build({
  entryPoints: [path.join(ROOT, 'packages/cli/src/sea-main.ts')],
  outfile: BUNDLE,
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  // CommonJS has no import.meta: give the modules that compute paths from it the bundle's own location.
  define: {
    'import.meta.url': '__proto_import_meta_url',
    'import.meta.dirname': '__dirname',
    'import.meta.resolve': 'undefined',
  },
  banner: { js: "const __proto_import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [embedSchemas],
  logLevel: 'warning',
  legalComments: 'none',
});

const seaConfig = path.join(OUT_DIR, 'sea-config.json');
writeFileSync(
  seaConfig,
  JSON.stringify({ main: BUNDLE, output: BLOB, disableExperimentalSEAWarning: true, useCodeCache: false }),
);
execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], { stdio: 'inherit' });
copyFileSync(process.execPath, EXECUTABLE);
chmodSync(EXECUTABLE, 0o755);
const postject = createRequire(import.meta.url).resolve('postject/dist/cli.js');
execFileSync(process.execPath, [postject, EXECUTABLE, 'NODE_SEA_BLOB', BLOB, '--sentinel-fuse', SEA_FUSE], {
  stdio: 'inherit',
});
console.log(`built ${path.relative(ROOT, EXECUTABLE)}`);
