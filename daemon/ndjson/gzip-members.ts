import zlib from 'node:zlib';

// Compressed data files as independent gzip members of bounded size, each holding whole
// lines. Every member's header carries an extra field (`Md`, RFC 1952 FEXTRA) with its own
// length and the length of the lines it holds, so the members can be found by reading their
// headers only, and a query decompresses only the members its range touches. The file is an
// ordinary multi-member gzip (zcat reads it). A file without the field (compressed by an
// earlier version: one member) is read from its start.

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
}

/** The members of a file, or why they could not all be found. */
export interface MemberList {
  /** False for a file compressed as one member without the field (read from its start). */
  indexed: boolean;
  members: Member[];
  /** Plain bytes of the members found. */
  plainBytes: number;
  /** What is wrong past the last member found (a truncated or overwritten file), if anything. */
  damage?: string;
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

/**
 * Walk the member headers of a file of `size` bytes; `readAt(pos, len)` reads (fewer bytes
 * at the end). A generator so that the same walk runs synchronously (start-up) and
 * asynchronously (queries): the caller answers each request for bytes.
 */
export function* walkMembers(size: number): Generator<{ pos: number; len: number }, MemberList, Buffer> {
  const list: MemberList = { indexed: true, members: [], plainBytes: 0 };
  if (size === 0) return { ...list, damage: 'it is empty (0 bytes), not a gzip file' };
  let pos = 0;
  while (pos < size) {
    const head = yield { pos, len: MEMBER_HEADER_BYTES };
    const sizes = memberHeader(head);
    if (!sizes) {
      if (pos === 0) return { ...list, indexed: false };
      return { ...list, damage: `no gzip member where one should start at byte ${pos}` };
    }
    if (pos + sizes.bytes > size) return { ...list, damage: `truncated: its member at byte ${pos} ends past the end of the file` };
    list.members.push({ offset: pos, bytes: sizes.bytes, plainOffset: list.plainBytes, plainBytes: sizes.plainBytes });
    list.plainBytes += sizes.plainBytes;
    pos += sizes.bytes;
  }
  return list;
}
