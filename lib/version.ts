import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The package version, read once from the package.json this module ships in.

function findVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'meridian-telemetry' && pkg.version) return pkg.version;
    }
    dir = path.dirname(dir);
  }
  return '0.0.0';
}

/** The semver of this package, as `/ready` and `--version` report it. */
export const VERSION: string = findVersion();
