import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { STATE_DIR, writeJsonAtomic } from '../storage/state-files.js';
import type { StorageFs } from '../storage/storage-fs.js';

// The Alpaca UniqueIDs (the Alpaca API Reference, section 5.7: 48 bits or more, different
// for otherwise identical devices, never changed, kept across power-downs): a random UUID
// per device type, made the first time [alpaca] is on and kept in
// `<site_dir>/.meridian/alpaca-ids.json`, so a client finds the same devices again after a
// restart or an address change. A damaged file is set aside and new ids are made (said in the log).

/** The file of the ids under a site directory. */
export function uniqueIdsFile(siteDir: string): string {
  return path.join(siteDir, STATE_DIR, 'alpaca-ids.json');
}

/** The ids of `deviceTypes` (made and saved for types without one); `warn` hears of a damaged file set aside. */
export function loadUniqueIds(file: string, deviceTypes: readonly string[], io: StorageFs, warn: (message: string) => void, now: number): Record<string, string> {
  let ids: Record<string, string> = {};
  let text: string | undefined;
  try {
    text = io.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw new Error(`the Alpaca UniqueIDs cannot be read from ${file} (${code ?? (error as Error).message})`, { cause: error });
  }
  if (text !== undefined) {
    const parsed = parseIds(text);
    if (parsed) ids = parsed;
    else {
      const aside = `${file}.damaged-${now}`;
      io.renameSync(file, aside);
      warn(`${file} is damaged (set aside as ${aside}): the Alpaca devices get new UniqueIDs, clients must choose them again`);
    }
  }
  const missing = deviceTypes.filter((t) => !Object.hasOwn(ids, t));
  if (missing.length > 0) {
    ids = { ...ids, ...Object.fromEntries(missing.map((t) => [t, randomUUID()])) };
    try {
      io.mkdirSync(path.dirname(file), { recursive: true });
      writeJsonAtomic(file, { version: 1, ids }, io);
    } catch (error) {
      // ids that would change at the next start are worse than a refusal to start: clients could not find the devices again
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new Error(`the Alpaca UniqueIDs cannot be saved to ${file} (${code}); they must outlive a restart`, { cause: error });
    }
  }
  return ids;
}

function parseIds(text: string): Record<string, string> | undefined {
  try {
    const doc = JSON.parse(text) as { version?: unknown; ids?: unknown };
    if (doc.version !== 1 || doc.ids === null || typeof doc.ids !== 'object' || Array.isArray(doc.ids)) return undefined;
    const entries = Object.entries(doc.ids as Record<string, unknown>);
    return entries.every(([, v]) => typeof v === 'string' && /^[0-9a-f-]{36}$/.test(v)) ? Object.fromEntries(entries) as Record<string, string> : undefined;
  } catch {
    return undefined;
  }
}
