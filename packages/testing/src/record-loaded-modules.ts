// Preload (`node --import`, LOADED_MODULES_RECORDER) for the services' idle-modules tests: records the URL of every module the process loads
// and writes them, one a line, to LOADED_MODULES_FILE when the process exits. Test-only; P80.
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env['LOADED_MODULES_FILE'];
const loaded = new Set<string>();
registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url);
    return nextLoad(url, context);
  },
});
process.on('exit', () => {
  if (file !== undefined) writeFileSync(file, [...loaded].join('\n'));
});
