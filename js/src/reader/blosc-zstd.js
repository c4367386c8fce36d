/**
 * blosc chunks whose streams are zstd (the history array's data from version 1.2, and any level
 * written with blosc zstd), decoded here with the zstd decoder the levels use already, then
 * unshuffled: numcodecs' blosc module is 615 kB of script a page would otherwise fetch before a
 * first pixel history could be decoded (seconds on a 10 Mbit/s link shared with read-ahead).
 * Only the layout c-blosc 1.x writes is read (checkBloscHeader has walked it before): a 16-byte
 * header, the starts of the blocks, and in each block one length-prefixed stream, or one per byte
 * of an item when the encoder split it; a stream as long as its part of the block is stored raw.
 * @module
 */
import { decodeZstd, zstdWithSize } from './zstd.js';

const SHUFFLE = 0x01;
const MEMCPYED = 0x02;
const BITSHUFFLE = 0x04;
const DONT_SPLIT = 0x10;

/**
 * The decoded bytes of a blosc chunk with zstd streams (its header checked by the caller), or null
 * when zstddec is not available here (the caller then asks numcodecs' blosc).
 * @param {Uint8Array} bytes @returns {Promise<Uint8Array | null>}
 */
export async function decodeBloscZstd(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [version, , flags, typesize] = bytes;
  const nbytes = view.getUint32(4, true);
  if (flags & MEMCPYED) return bytes.slice(16, 16 + nbytes);
  const blocksize = view.getUint32(8, true);
  const blocks = Math.ceil(nbytes / blocksize);
  const splittable = !(flags & DONT_SPLIT) && typesize <= 16 && Math.floor(blocksize / Math.max(typesize, 1)) >= 128;
  const out = new Uint8Array(nbytes);
  const block = new Uint8Array(blocksize);
  for (let i = 0; i < blocks; i++) {
    const bsize = Math.min(blocksize, nbytes - i * blocksize);
    const streams = splittable && bsize === blocksize ? typesize : 1;
    const neblock = bsize / streams;
    let at = view.getInt32(16 + 4 * i, true);
    for (let j = 0; j < streams; j++) {
      const csize = view.getInt32(at, true);
      const src = bytes.subarray(at + 4, at + 4 + csize);
      at += 4 + csize;
      if (csize === neblock) block.set(src, j * neblock);
      else {
        const decoded = await decodeZstd(zstdWithSize(src, neblock), neblock);
        if (decoded == null) return null;
        if (decoded.length !== neblock) throw new Error(`blosc block ${i}: a zstd stream decodes to ${decoded.length} bytes, expected ${neblock}`);
        block.set(decoded, j * neblock);
      }
    }
    const dest = out.subarray(i * blocksize, i * blocksize + bsize);
    const src = block.subarray(0, bsize);
    if (flags & SHUFFLE && typesize > 1) unshuffle(src, dest, typesize);
    else if (flags & BITSHUFFLE && bsize >= typesize) bitunshuffle(src, dest, typesize, version);
    else dest.set(src);
  }
  return out;
}

/**
 * Undo blosc's byte shuffle: byte j of every item was stored together; the bytes past the last
 * whole item are as they were.
 * @param {Uint8Array} src @param {Uint8Array} dest @param {number} typesize
 */
function unshuffle(src, dest, typesize) {
  const items = Math.floor(src.length / typesize);
  for (let j = 0; j < typesize; j++) {
    const row = j * items;
    for (let i = 0; i < items; i++) dest[i * typesize + j] = src[row + i];
  }
  dest.set(src.subarray(items * typesize), items * typesize);
}

/**
 * Undo bitshuffle (its bshuf_untrans_bit_elem): bit k of byte j of item i was stored at bit i % 8
 * of byte (8j + k) * items / 8 + floor(i / 8). It covers whole groups of 8 items (format 2, that
 * of c-blosc 1.x: the whole block or nothing), the rest is as it was.
 * @param {Uint8Array} src @param {Uint8Array} dest @param {number} typesize @param {number} version the header's format version
 */
function bitunshuffle(src, dest, typesize, version) {
  const size = Math.floor(src.length / typesize);
  const items = version <= 2 ? (size % 8 === 0 ? size : 0) : size - (size % 8);
  const rowBytes = items / 8;
  // Per byte j of an item and group g of 8 items, the 8 stored bytes s_k (k = 0..7, one per bit)
  // form an 8 x 8 bit matrix whose transpose is the group's 8 bytes j: byte j of item 8g + m has
  // bit k = bit m of s_k. Transposed with 32-bit masks (Hacker's Delight, transpose8), a few
  // operations per 8 bytes instead of one per bit.
  for (let j = 0; j < typesize; j++) {
    const rows = 8 * j * rowBytes;
    for (let g = 0; g < rowBytes; g++) {
      const at = rows + g;
      let x = (src[at + 7 * rowBytes] << 24) | (src[at + 6 * rowBytes] << 16) | (src[at + 5 * rowBytes] << 8) | src[at + 4 * rowBytes];
      let y = (src[at + 3 * rowBytes] << 24) | (src[at + 2 * rowBytes] << 16) | (src[at + rowBytes] << 8) | src[at];
      let t = (x ^ (x >>> 7)) & 0x00aa00aa;
      x = x ^ t ^ (t << 7);
      t = (y ^ (y >>> 7)) & 0x00aa00aa;
      y = y ^ t ^ (t << 7);
      t = (x ^ (x >>> 14)) & 0x0000cccc;
      x = x ^ t ^ (t << 14);
      t = (y ^ (y >>> 14)) & 0x0000cccc;
      y = y ^ t ^ (t << 14);
      t = (x & 0xf0f0f0f0) | ((y >>> 4) & 0x0f0f0f0f);
      y = ((x << 4) & 0xf0f0f0f0) | (y & 0x0f0f0f0f);
      const base = 8 * g * typesize + j;
      dest[base] = y;
      dest[base + typesize] = y >>> 8;
      dest[base + 2 * typesize] = y >>> 16;
      dest[base + 3 * typesize] = y >>> 24;
      dest[base + 4 * typesize] = t;
      dest[base + 5 * typesize] = t >>> 8;
      dest[base + 6 * typesize] = t >>> 16;
      dest[base + 7 * typesize] = t >>> 24;
    }
  }
  dest.set(src.subarray(items * typesize), items * typesize);
}
