import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { membersOfFile } from '../ndjson/scan.js';
import { openRegular } from '../ndjson/regular.js';

// Whether a `.gz` beside its plain data file is that file's whole copy: judged by reading it
// whole, never by its headers (docs/storage.md "Crash safety of a compression"). Only then
// may the plain file be removed; any doubt keeps both.

/** Thrown inside the comparison when the inflated bytes part from the plain file's. */
class Differs extends Error {}

/**
 * Why `gz` is no whole copy of `plain` (damaged by the readers' member walk, a member that
 * does not inflate or fails its CRC or length check, other bytes than the plain file's, another
 * length), or undefined when every member inflates and the bytes equal the plain file's.
 */
export async function whyNotWholeCopy(gz: string, plain: string): Promise<string | undefined> {
  const walked = membersOfFile(gz);
  if (walked.damage.length > 0) return `it is damaged: ${walked.damage[0]!}`;
  const plainBytes = (await fsp.stat(plain)).size;
  if (walked.plainBytes !== plainBytes) return `it holds ${walked.plainBytes} bytes of lines, the plain file ${plainBytes}`;
  const handle = await openRegular(plain);
  let pos = 0;
  let differs: string | undefined; // the pipeline rejects with its own abort, not with the error thrown inside it
  try {
    await pipeline(fs.createReadStream(gz), zlib.createGunzip(), async (chunks: AsyncIterable<Buffer>) => {
      for await (const chunk of chunks) {
        const mine = Buffer.alloc(chunk.length);
        const { bytesRead } = await handle.read(mine, 0, chunk.length, pos);
        if (bytesRead !== chunk.length || !mine.equals(chunk)) throw new Differs(differs = `its bytes differ from the plain file's after byte ${pos}`);
        pos += chunk.length;
      }
    });
  } catch (error) {
    if (differs !== undefined) return differs;
    if (error instanceof Differs) return error.message;
    return `it does not inflate whole (${(error as Error).message})`;
  } finally {
    await handle.close();
  }
  return pos === plainBytes ? undefined : `it inflates to ${pos} bytes, the plain file holds ${plainBytes}`;
}

