import { isCompressed } from './names.js';
import { type MemberCache, RecordedFile } from './reader.js';

// One recorded file kept open between reads of a tail: a sink catching up reads the same file
// batch after batch, and opening, stat-ing and closing it for each batch cost three trips to
// the thread pool (on a busy machine each waits for a core). The held handle is used only for
// bytes it already knew to be there when it was opened (an append-only file's bytes never
// change), so a read that reaches its end opens the file afresh and sees what was appended,
// or that the file was replaced or compressed. A read that reached the end does not keep its
// handle: a sink that caught up holds no file open.

/** A file opened for one read: release it when done (`more`: bytes are known to be left after the read). */
export interface Lease {
  readonly handle: RecordedFile;
  /** Opened for this read: its size is the file's size now. */
  readonly fresh: boolean;
  release(more: boolean): Promise<void>;
}

interface Entry {
  file: string;
  handle: RecordedFile;
  users: number;
}

/** At most one recorded file held open for a reader (one sink); several reads may share it at once. */
export class HeldFile {
  private entry: Entry | undefined;

  /** `file` for a read of the bytes up to `needEnd`: the held handle when it knew of them, else opened now (the held one let go). Throws what opening throws. */
  async open(file: string, needEnd: number, cache?: MemberCache): Promise<Lease> {
    const held = this.entry;
    if (held && held.file === file && held.handle.size !== undefined && held.handle.size > needEnd) {
      held.users++;
      return this.lease(held, false);
    }
    await this.close();
    return this.lease({ file, handle: await RecordedFile.open(file, cache), users: 1 }, true);
  }

  /** Let the held file go (a stop); one in use is closed when its read ends. */
  async close(): Promise<void> {
    const held = this.entry;
    this.entry = undefined;
    if (held) await letGo(held);
  }

  private lease(entry: Entry, fresh: boolean): Lease {
    return {
      handle: entry.handle, fresh,
      release: async (more) => {
        entry.users--;
        // only a plain file is held (a compressed one notes the damage of each read on its handle)
        if (more && fresh && this.entry === undefined && !isCompressed(entry.file)) {
          this.entry = entry;
          return;
        }
        if (!more && this.entry === entry) this.entry = undefined;
        if (this.entry !== entry) await letGo(entry);
      },
    };
  }
}

// close an entry no longer held once no read uses it
async function letGo(entry: Entry): Promise<void> {
  if (entry.users === 0) await entry.handle.close();
}
