// @ts-check
// blosc with zstd streams decoded without numcodecs' blosc module (src/reader/blosc-zstd.js): the
// bytes equal those c-blosc (Python's numcodecs) compressed,
// for each shuffle, item size and block layout, and such a store's codec loads zstd's decoder only.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { decodeBloscZstd } from '../src/reader/blosc-zstd.js';
import { decodeBytes, decoderOf } from '../src/reader/codecs.js';
import { python } from './helpers.js';

/**
 * Chunks c-blosc wrote (Python's numcodecs: numcodecs' JS build encodes 1-byte items only), with
 * the bytes they hold: for each item size, size and block size (0: blosc's choice), with the shuffle.
 * @param {number} shuffle 0 none, 1 byte, 2 bit
 * @returns {{ label: string, raw: Uint8Array, chunk: Uint8Array, itemSize: number }[]}
 */
function written(shuffle) {
  const script = `
import base64, json, sys
import numpy as np
from numcodecs import Blosc
out = []
rng = np.random.default_rng(5)
for dtype, n, blocksize in [("u2", 32768, 0), ("u2", 32768, 4096), ("u2", 3000, 1024), ("u4", 5001, 2048), ("u1", 777, 0), ("u8", 1001, 4096), ("u2", 13, 0)]:
    a = (rng.integers(0, 40, n) + np.arange(n) // 512).astype(dtype)
    chunk = Blosc(cname="zstd", clevel=5, shuffle=${shuffle}, blocksize=blocksize).encode(a)
    out.append({"label": f"{dtype} x {n}, blocks of {blocksize or 'auto'}", "raw": base64.b64encode(a.tobytes()).decode(), "chunk": base64.b64encode(chunk).decode(), "itemSize": a.dtype.itemsize})
json.dump(out, sys.stdout)
`;
  const run = spawnSync(python, ['-c', script], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout).map((/** @type {{ label: string, raw: string, chunk: string, itemSize: number }} */ c) => ({ ...c, raw: Buffer.from(c.raw, 'base64'), chunk: Buffer.from(c.chunk, 'base64') }));
}

const SHUFFLES = /** @type {const} */ ({ noshuffle: 0, shuffle: 1, bitshuffle: 2 });

for (const [shuffle, code] of Object.entries(SHUFFLES)) {
  test(`blosc zstd with ${shuffle} decodes to the bytes c-blosc wrote (item sizes 1-8, several and partial blocks)`, async () => {
    for (const { label, raw, chunk, itemSize } of written(code)) {
      assert.deepEqual(Buffer.from(/** @type {Uint8Array} */ (await decodeBloscZstd(chunk))), raw, label);
      assert.deepEqual(Buffer.from(await decodeBytes({ name: 'blosc', cname: 'zstd', shuffle, itemSize }, chunk, raw.length, 'x')), raw, label);
    }
  });
}

test('incompressible bytes (stored raw by blosc) decode as they are', async () => {
  const { default: Blosc } = await import('numcodecs/blosc');
  const raw = new Uint8Array(4096);
  for (let i = 0; i < raw.length; i++) raw[i] = (Math.imul(i, 2654435761) >>> 13) & 255;
  const chunk = /** @type {Uint8Array} */ (await new Blosc(5, 'zstd', 0).encode(raw));
  assert.deepEqual(await decodeBloscZstd(chunk), raw);
});

test('a blosc zstd codec is loaded as zstd; blosc lz4 still needs the blosc module', () => {
  assert.equal(decoderOf({ name: 'blosc', cname: 'zstd', shuffle: 'bitshuffle' }), 'zstd');
  assert.equal(decoderOf({ name: 'blosc', cname: 'lz4' }), 'blosc');
  assert.equal(decoderOf({ name: 'zstd' }), 'zstd');
});

test('headers c-blosc refuses (a later format, 0-byte items, blocks larger than the chunk) are refused, not decoded by the zstd path', async () => {
  const { default: Blosc } = await import('numcodecs/blosc');
  const raw = new Uint8Array(8192);
  for (let i = 0; i < raw.length; i++) raw[i] = (i >> 6) & 255;
  const chunk = /** @type {Uint8Array} */ (await new Blosc(5, 'zstd', 0).encode(raw));
  /** @type {[string, (v: DataView) => void][]} */
  const damages = [
    ['a later header format', (v) => v.setUint8(0, 3)],
    ['0-byte items', (v) => v.setUint8(3, 0)],
    ['blocks larger than the chunk', (v) => v.setUint32(8, raw.length + 2, true)],
  ];
  for (const [label, damage] of damages) {
    const bytes = chunk.slice();
    damage(new DataView(bytes.buffer));
    await assert.rejects(decodeBytes({ name: 'blosc', cname: 'zstd', shuffle: 'noshuffle' }, bytes, raw.length, 'x'), /not one c-blosc writes or reads/, label);
  }
});
