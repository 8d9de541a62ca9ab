import zlib from 'node:zlib';
import { type Inflated, startsMember } from './gzip-inflate.js';

// Compressed data files as independent gzip members of bounded size, each holding whole
// lines. Every member's header carries an extra field (`Md`, RFC 1952 FEXTRA) with its own
// length and the length of the lines it holds, so the members can be found by reading their
// headers only, and a query decompresses only the members its range touches. The file is an
// ordinary multi-member gzip (zcat reads it). A file without the field (compressed by an
// earlier version, or by hand) or with a damaged field is read by inflating it (gzip-inflate.ts).

/** Plain bytes of lines per member (a line longer than this is a member of its own). */
export const MEMBER_PLAIN_BYTES = 64 * 1024;

/** Bytes of a member's header: 10 fixed, XLEN, and the `Md` subfield of 4 + 8 bytes. */
export const MEMBER_HEADER_BYTES = 24;

/** One member: where it lies in the file and which plain bytes it holds. */
export interface Member {
  offset: number;
  bytes: number;
  plainOffset: number;
  plainBytes: number;
  /** True for a member without a (valid) `Md` field: found by inflating it, read as a stream from its start. */
  streamed: boolean;
  /** True when the file ends inside it (named damaged once: a torn last line in it is not named again). */
  partial?: boolean;
}

/** The members of a file, and what could not be read of it. */
export interface MemberList {
  /** True when every member carries its `Md` field (false: a gzip made otherwise, or a field damaged). */
  indexed: boolean;
  members: Member[];
  /** Plain bytes of the members found. */
  plainBytes: number;
  /** What could not be read (bytes holding no member that decompresses, a truncated member), empty when nothing. */
  damage: string[];
}

/** One member holding `plain` (whole lines), compressed here (tests; the daemon compresses off the event loop: framedMember). */
export function encodeMember(plain: Buffer): Buffer {
  return framedMember(zlib.gzipSync(plain, { level: 6 }), plain.length);
}

/** The member of a gzip of `plainBytes` bytes (`gz`, one member as zlib writes it) with the `Md` field in its header. */
export function framedMember(gz: Buffer, plainBytes: number): Buffer {
  const header = Buffer.alloc(MEMBER_HEADER_BYTES);
  gz.copy(header, 0, 0, 10);
  header[3] = 0x04; // FLG: FEXTRA only
  header.writeUInt16LE(12, 10);
  header.write('Md', 12, 'latin1');
  header.writeUInt16LE(8, 14);
  const bytes = MEMBER_HEADER_BYTES + gz.length - 10;
  header.writeUInt32LE(bytes, 16);
  header.writeUInt32LE(plainBytes, 20);
  return Buffer.concat([header, gz.subarray(10)]);
}

/** The sizes a member header holds, or undefined when `head` is no such header. */
export function memberHeader(head: Buffer): { bytes: number; plainBytes: number } | undefined {
  if (head.length < MEMBER_HEADER_BYTES || head[0] !== 0x1f || head[1] !== 0x8b || head[2] !== 8 || head[3] !== 0x04) return undefined;
  if (head.readUInt16LE(10) !== 12 || head.toString('latin1', 12, 14) !== 'Md' || head.readUInt16LE(14) !== 8) return undefined;
  return { bytes: head.readUInt32LE(16), plainBytes: head.readUInt32LE(20) };
}

/** Why a member is named damaged when it ends inside a line (every reader says it the same way). */
export function tornMember(offset: number, bytes: number): string {
  return `its member at byte ${offset} ends inside a line (its last ${bytes} bytes form no whole line)`;
}

/** Whether member `i` and the next are read as one stream: both without the field, nothing between them, the first whole. */
export function joinsNext(members: readonly Member[], i: number): boolean {
  const m = members[i]!;
  const next = members[i + 1];
  return m.streamed && !m.partial && next !== undefined && next.streamed && next.offset === m.offset + m.bytes;
}

/** A request of the walk: bytes at `pos`, or the member at `inflate` inflated (answered with an Inflated). */
export type WalkRequest = { pos: number; len: number; inflate?: undefined } | { inflate: number };

/**
 * Walk the members of a file of `size` bytes. A generator so that the same walk runs
 * synchronously (start-up) and asynchronously (queries): the caller answers each request
 * (bytes read, fewer at the end; or the member at a position inflated). A member whose `Md`
 * field agrees with its trailer and is followed by a member or the end is taken from its
 * header; any other member is inflated to find its end (a gzip made by hand, a field
 * damaged); bytes where no member decompresses are skipped to the next gzip magic and named.
 */
export function* walkMembers(size: number): Generator<WalkRequest, MemberList, Buffer | Inflated> {
  const list: MemberList = { indexed: true, members: [], plainBytes: 0, damage: [] };
  if (size === 0) return { ...list, damage: ['it is empty (0 bytes), not a gzip file'] };
  const add = (offset: number, bytes: number, plainBytes: number, streamed: boolean, partial = false) => {
    list.members.push({ offset, bytes, plainOffset: list.plainBytes, plainBytes, streamed, ...(partial ? { partial } : {}) });
    list.plainBytes += plainBytes;
    if (streamed) list.indexed = false;
  };
  let lostFrom = -1;
  const found = (pos: number) => {
    if (lostFrom !== -1) list.damage.push(`bytes ${lostFrom}-${pos} of it hold no gzip member that decompresses`);
    lostFrom = -1;
  };
  for (let pos = 0; pos < size;) {
    const head = (yield { pos, len: MEMBER_HEADER_BYTES }) as Buffer;
    const sizes = memberHeader(head);
    if (sizes && sizes.bytes >= MEMBER_HEADER_BYTES + 8 && pos + sizes.bytes <= size) {
      // its trailer's length and what follows (a member or the end) vouch for the field
      const after = (yield { pos: pos + sizes.bytes - 4, len: 7 }) as Buffer;
      if (after.readUInt32LE(0) === sizes.plainBytes && (pos + sizes.bytes === size || startsMember(after, 4))) {
        found(pos);
        add(pos, sizes.bytes, sizes.plainBytes, false);
        pos += sizes.bytes;
        continue;
      }
    }
    if (startsMember(head)) {
      const member = (yield { inflate: pos }) as Inflated;
      if (member.bytes > 0) {
        found(pos);
        add(pos, member.bytes, member.plainBytes, true, member.partial);
        if (member.error) list.damage.push(`its member at byte ${pos} ${member.error}`);
        pos += member.bytes;
        continue;
      }
    }
    if (lostFrom === -1) lostFrom = pos;
    pos = yield* nextMagic(pos + 1, size);
  }
  found(size);
  return list;
}

/** Where the next gzip magic (1f 8b 08) starts at or after `from`, or `size`. */
function* nextMagic(from: number, size: number): Generator<WalkRequest, number, Buffer | Inflated> {
  const WINDOW = 64 * 1024;
  for (let pos = from; pos < size; pos += WINDOW - 2) {
    const buf = (yield { pos, len: WINDOW }) as Buffer;
    for (let at = buf.indexOf(0x1f); at !== -1; at = buf.indexOf(0x1f, at + 1)) {
      if (at + 3 > buf.length) break;
      if (startsMember(buf, at)) return pos + at;
    }
    if (buf.length < WINDOW) break;
  }
  return size;
}
