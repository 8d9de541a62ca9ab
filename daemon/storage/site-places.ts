import fs from 'node:fs';
import path from 'node:path';
import { GZ, isSiteFileName } from '../ndjson/names.js';

// Where the state files under `.meridian/` say a run's directory or file is. A path inside the
// site directory is recorded relative to it, so that a site directory moved (`mv site site2`)
// or copied (`cp -a site copy`) keeps its runs, and two daemons on two copies never write each
// other's files. A run_dir outside the site directory stays absolute. Records of earlier
// versions hold absolute paths: one under the site directory's former place is read at the same
// place under the site directory now (docs/storage.md, "A site directory moved or copied").

/** The recorded and the real form of the paths of one site directory. */
export class SitePlaces {
  readonly siteDir: string;
  /** Where the site directory was when the records were written, when that is known and differs. */
  readonly former: string | undefined;

  constructor(siteDir: string, former?: string) {
    this.siteDir = path.resolve(siteDir);
    this.former = former !== undefined && path.resolve(former) !== this.siteDir ? path.resolve(former) : undefined;
  }

  /** The places of a site directory whose snapshot marks a site day file at `markedSiteFile` (its former place). */
  static fromMark(siteDir: string, markedSiteFile: string | undefined): SitePlaces {
    const former = markedSiteFile !== undefined && path.isAbsolute(markedSiteFile) && isSiteFileName(path.basename(markedSiteFile))
      ? path.dirname(markedSiteFile) : undefined;
    return new SitePlaces(siteDir, former);
  }

  /** How a path is recorded: relative to the site directory when it lies inside it, else absolute. */
  record(file: string): string {
    if (file === '') return file; // no file (yet): a sink's site position before the first event
    const rel = path.relative(this.siteDir, file);
    return inside(rel) ? rel : file;
  }

  /**
   * The path a record means now: a relative one under the site directory; an absolute one
   * under the former site directory at its place under the site directory now; an absolute
   * one that is not there, when no former place is known, at the longest tail of it found
   * under the site directory (`014/telemetry.ndjson`, `014`); any other as it is.
   */
  place(recorded: string): string {
    if (recorded === '') return recorded;
    if (!path.isAbsolute(recorded)) return path.join(this.siteDir, recorded);
    if (inside(path.relative(this.siteDir, recorded))) return recorded;
    if (this.former !== undefined) {
      const rel = path.relative(this.former, recorded);
      return inside(rel) ? path.join(this.siteDir, rel) : recorded;
    }
    if (present(recorded)) return recorded;
    const parts = recorded.split(path.sep).filter((part) => part !== '');
    for (let i = 1; i < parts.length; i++) {
      const candidate = path.join(this.siteDir, ...parts.slice(i));
      if (present(candidate)) return candidate;
    }
    return recorded;
  }

  /** Whether a record should be written again in its recorded form (an absolute path of an earlier version inside the site directory). */
  stale(recorded: string): boolean {
    return this.record(this.place(recorded)) !== recorded;
  }
}

/** Whether a relative path from the site directory stays inside it (and is not the directory itself). */
function inside(rel: string): boolean {
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/** Whether a file or directory is there, plain or as its `.gz`. */
function present(file: string): boolean {
  return fs.existsSync(file) || fs.existsSync(file + GZ);
}
