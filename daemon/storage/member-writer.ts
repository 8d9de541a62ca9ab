import type { Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { framedMember, MEMBER_PLAIN_BYTES } from '../ndjson/gzip-members.js';

// Writing a compressed data file as indexed gzip members (the format: daemon/ndjson/gzip-members.ts):
// the plain bytes are cut after the last newline of every ~64 KiB (a history index block),
// each piece compressed on zlib's thread pool, so a compression holds the event loop for no
// more than a copy.

const gzip = promisify(zlib.gzip);

/** Thrown when a compression is abandoned (a stop): the caller removes what it wrote. */
export class CompressionAbandoned extends Error {
  constructor(file: string) {
    super(`the compression of ${file} was abandoned (the daemon is stopping); the original is kept`);
  }
}

/**
 * Write the plain bytes of `chunks` to `out` as members of whole lines, hashing them into
 * `digest`. `stopped()` is asked before every member: true abandons (CompressionAbandoned).
 */
export async function writeMembers(file: string, chunks: AsyncIterable<Buffer>, out: FileHandle, digest: Hash,
  stopped: () => boolean): Promise<void> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  const emit = async (plain: Buffer) => {
    if (stopped()) throw new CompressionAbandoned(file);
    await out.write(framedMember(await gzip(plain, { level: 6 }), plain.length));
  };
  for await (const chunk of chunks) {
    digest.update(chunk);
    held.push(chunk);
    heldBytes += chunk.length;
    while (heldBytes >= MEMBER_PLAIN_BYTES) {
      const data = Buffer.concat(held);
      // cut after the last newline within the bound; a longer line is a member of its own
      let cut = data.lastIndexOf(10, MEMBER_PLAIN_BYTES - 1) + 1;
      if (cut === 0) cut = data.indexOf(10) + 1;
      if (cut === 0) {
        held = [data];
        break;
      }
      await emit(data.subarray(0, cut));
      held = [data.subarray(cut)];
      heldBytes = data.length - cut;
    }
  }
  if (heldBytes > 0) await emit(Buffer.concat(held));
}
