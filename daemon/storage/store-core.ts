import type { RunRecord } from '../../lib/wire.js';
import type { BatchJournal } from './batch-journal.js';
import type { CurrentView } from './current-view.js';
import type { DiskSpace } from './disk-space.js';
import type { Durability } from './durability.js';
import type { SuspendedRun } from './restore.js';
import type { SiteDays } from './site-days.js';
import type { SitePlaces } from './site-places.js';
import type { statePaths } from './state-files.js';
import type { StorageFs } from './storage-fs.js';
import type { StoreOptions } from './store-types.js';
import type { TargetMark } from './state-files.js';
import type { Target } from './target.js';
import type { Timeline } from './timeline.js';

// The state one open store shares between its parts (appending, the run protocol, snapshots):
// one object per store, owned by TelemetryStore, never module-level.

/** The active run: its record, the record as answered, and its target. */
export interface ActiveRun {
  record: RunRecord;
  /** The record as answered (meta spelled as the caller sent it). */
  recordJson: string;
  /** The run id as JSON text, and the meta of an event that sent none. */
  idJson: string;
  emptyMeta: string;
  target: Target;
}

/** What the parts of one store share; `run` and `suspended` change with the run protocol. */
export interface StoreCore {
  readonly opts: StoreOptions;
  readonly view: CurrentView;
  readonly io: StorageFs;
  readonly paths: ReturnType<typeof statePaths>;
  /** How the state files record paths (relative inside the site directory). */
  readonly places: SitePlaces;
  readonly days: SiteDays;
  readonly durability: Durability;
  readonly site: Target;
  /** Where the site stood at start-up when its last file was a past day's (no file open yet): what snapshots mark until one is. */
  readonly closedSiteMark: TargetMark | null;
  readonly timeline: Timeline;
  /** Where a whole batch notes the files it writes (batch-journal.ts); every target writes through it. */
  readonly journal: BatchJournal;
  /** Whether the disk is full, as the last writes found it. */
  readonly disk: DiskSpace;
  run: ActiveRun | undefined;
  suspended: SuspendedRun | undefined;
  /** true once close() began: nothing more is recorded. */
  closed: boolean;
}

/** The active run of `record`, with the texts its events' meta is built from. */
export function activeRunOf(record: RunRecord, recordJson: string, target: Target): ActiveRun {
  const idJson = JSON.stringify(record.run_id);
  return { record, recordJson, idJson, emptyMeta: `{"run_id":${idJson}}`, target };
}
