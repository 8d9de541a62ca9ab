import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../lib/errors.js';

// Where the Boltwood file may not be: each rewrite renames a new file over its path, so a path
// inside the site directory (a day file, a run file, a state file under .meridian/) or naming
// the config file or the log file would replace recorded data or the daemon's own files.

/** The places the daemon owns, as real paths (symbolic links resolved by the caller). */
export interface OwnPlaces {
  siteDir?: string;
  configFile?: string;
  logFile?: string;
}

/** Throw ConfigError (`where`: the config file) when the Boltwood file's real path `file` is one of the daemon's own places. */
export function checkBoltwoodPlace(file: string, own: OwnPlaces, where: string): void {
  const inside = own.siteDir === undefined ? '..' : path.relative(own.siteDir, file);
  const inSite = inside === '' || (!inside.startsWith('..') && !path.isAbsolute(inside));
  const clash = inSite ? `inside the site directory ${own.siteDir}` : file === own.configFile ? 'the config file'
    : file === own.logFile ? 'the log file' : undefined;
  if (clash === undefined) return;
  throw new ConfigError(`${where}: boltwood: path`,
    `a file outside the site directory, not the config file or the log file (it is rewritten by renaming a new file over it; this one is ${clash})`, file);
}

/** `p` with its symbolic links resolved as far as it exists (a file not made yet: its directory's real path). */
export function realPathOf(p: string): string {
  const full = path.resolve(p);
  try {
    return fs.realpathSync(full);
  } catch {
    try {
      return path.join(fs.realpathSync(path.dirname(full)), path.basename(full));
    } catch {
      return full;
    }
  }
}
