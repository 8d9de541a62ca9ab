// The load hook of module-trace.mjs (it runs on the loader's own thread, with the same
// environment): one line per module, written before the module loads.
import fs from 'node:fs';

const traceFile = process.env.MODULE_TRACE_FILE;

/** Write the module's URL, then let Node load it. */
export function load(url, context, nextLoad) {
  fs.appendFileSync(traceFile, `${url}\n`);
  return nextLoad(url, context);
}
