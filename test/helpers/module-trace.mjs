// Preloaded into a child (`node --import <this file's URL>`, MODULE_TRACE_FILE set): appends the
// URL of every module the child loads to that file, one a line. ES modules (and CommonJS ones
// they import) are seen by the load hook as they load; CommonJS modules required from those
// are read from the require cache at exit.
import fs from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = process.env.MODULE_TRACE_FILE;
if (file) {
  register('./module-trace-hooks.mjs', import.meta.url);
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => {
    fs.appendFileSync(file, Object.keys(cache).map((p) => `${pathToFileURL(p).href}\n`).join(''));
  });
}
