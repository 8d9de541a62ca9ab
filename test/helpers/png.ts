import zlib from 'node:zlib';

// A PNG decoded with node:zlib (8-bit RGB or RGBA, not interlaced: what Chromium's screenshots are),
// for tests that check the pixels of a rendered page.

/** A decoded image: its size and a pixel reader. */
export interface Image {
  width: number;
  height: number;
  /** [r, g, b] of the pixel at x, y. */
  pixel(x: number, y: number): [number, number, number];
}

/** Decode a PNG file's bytes; anything but 8-bit RGB/RGBA without interlace throws. */
export function decodePng(bytes: Buffer): Image {
  let at = 8;
  let width = 0, height = 0, channels = 0;
  const data: Buffer[] = [];
  while (at < bytes.length) {
    const length = bytes.readUInt32BE(at);
    const kind = bytes.toString('latin1', at + 4, at + 8);
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (kind === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = [body[8], body[9], body[10], body[11], body[12]];
      if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${interlace}`);
      channels = colour === 6 ? 4 : 3;
    } else if (kind === 'IDAT') data.push(body);
    at += 12 + length;
  }
  const raw = zlib.inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) unfilter(raw, y * (stride + 1), out, y * stride, stride, channels, y > 0);
  return { width, height, pixel: (x, y) => { const i = y * stride + x * channels; return [out[i]!, out[i + 1]!, out[i + 2]!]; } };
}

/** Undo one row's filter (PNG spec 9.2). */
function unfilter(raw: Buffer, rowAt: number, out: Buffer, outAt: number, stride: number, bpp: number, hasUp: boolean): void {
  const filter = raw[rowAt]!;
  for (let i = 0; i < stride; i++) {
    const x = raw[rowAt + 1 + i]!;
    const a = i >= bpp ? out[outAt + i - bpp]! : 0;
    const b = hasUp ? out[outAt - stride + i]! : 0;
    const c = hasUp && i >= bpp ? out[outAt - stride + i - bpp]! : 0;
    let v = x;
    if (filter === 1) v = x + a;
    else if (filter === 2) v = x + b;
    else if (filter === 3) v = x + ((a + b) >> 1);
    else if (filter === 4) {
      const p = a + b - c;
      const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
    }
    out[outAt + i] = v & 0xff;
  }
}
