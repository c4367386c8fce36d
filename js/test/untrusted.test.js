// @ts-check
// Stores from strangers (tests/hostile_stores.py, one flaw each): every read ends in the reader's
// own error naming the flaw, within a deadline and without peak memory growing past what the
// metadata implies, measured in a process of its own. And the checks on chunks, shard indexes and
// blosc headers that stand between stored bytes and wrong values.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { checkBloscHeader, decodeBytes } from '../src/reader/codecs.js';
import { crc32c } from '../src/reader/crc32c.js';
import { parseShardIndex } from '../src/reader/shards.js';
import { hostileStores, repo, streamedZstd } from './helpers.js';

const run = promisify(execFile);
const { dir, stores, index } = hostileStores();
const DEADLINE_MS = 30_000;
const GROWTH_BOUND = 64 * 2 ** 20; // one 512-byte chunk read, whatever a stored object claims

for (const [name, { message, t, phase }] of Object.entries(index.cases)) {
  test(`a hostile store ends in our error: ${name}`, async () => {
    const { stdout } = await run(process.execPath, [join(repo, 'js/tools/hostile-read.mjs'), join(stores, name), String(t), phase], { timeout: DEADLINE_MS });
    const ending = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
    assert.equal(ending.outcome, 'error', `${name} read as values`);
    assert.ok(['StoreError', 'FetchError'].includes(ending.name), `${name}: ${ending.name}: ${ending.message}`);
    assert.ok(ending.message.includes(message), `${name}: ${ending.message}`);
    if (phase === 'open') assert.equal(ending.during, 'open', ending.message);
    assert.ok(ending.growth < GROWTH_BOUND, `${name}: peak memory grew ${ending.growth} bytes`);
  });
}

/** A shard index of (offset, length) pairs and its checksum. @param {(number | bigint)[][]} pairs */
function rawIndex(pairs) {
  const raw = new Uint8Array(16 * pairs.length + 4);
  const view = new DataView(raw.buffer);
  pairs.forEach(([offset, length], i) => {
    view.setBigUint64(16 * i, BigInt(offset), true);
    view.setBigUint64(16 * i + 8, BigInt(length), true);
  });
  view.setUint32(16 * pairs.length, crc32c(raw.subarray(0, 16 * pairs.length)), true);
  return raw;
}

const EMPTY = 2n ** 64n - 1n;

test('shard index entries must each have bytes of their own inside the shard (as format/shard_index.py)', () => {
  /** @param {number} n @returns {import('../src/reader/arrays.js').ArrayInfo} */
  const info = (n, atEnd = true) => /** @type {import('../src/reader/arrays.js').ArrayInfo} */ ({ chunksPerShard: n, indexBytes: 16 * n + 4, indexAtEnd: atEnd });
  const ok = parseShardIndex(rawIndex([[0, 10], [EMPTY, EMPTY], [10, 5]]), info(3), 15 + 52, 's');
  assert.deepEqual([...ok.offsets], [0, -1, 10]);
  /** @type {[(number | bigint)[][], number | null, RegExp][]} */
  const cases = [
    [[[0, 10], [0, 10]], 200, /entries 0 .* and 1 .* repeat each other/],
    [[[0, 10], [5, 10]], 200, /entries 0 .* and 1 .* overlap/],
    [[[20, 10], [0, 25]], 200, /entries 0 .* and 1 .* overlap/],
    [[[0, 10], [160, 10]], 200, /entry 1 .* does not lie inside bytes 0-163/],
    [[[0, 10], [2n ** 63n, 10]], null, /entry 1 .* does not lie past the index/],
    [[[EMPTY, 10], [0, 10]], 200, /entry 0 is half empty/],
    [[[0, 0], [0, 10]], 200, /entry 0 stores a chunk of 0 bytes/],
  ];
  for (const [pairs, length, words] of cases) assert.throws(() => parseShardIndex(rawIndex(pairs), info(2), length, 's'), words);
  assert.throws(() => parseShardIndex(rawIndex([[10, 10], [40, 10]]), info(2, false), null, 's'), /entry 0 .* does not lie/);
});

/** The blosc samples js/test/hostile.py wrote (numcodecs, every cname and shuffle), with their codec and values. */
function bloscSamples() {
  const bytes = new Uint8Array(readFileSync(join(dir, 'blosc', 'raw.bin')));
  return ['zstd', 'lz4'].flatMap((cname) =>
    ['noshuffle', 'shuffle'].map((shuffle) => {
      /** @type {import('../src/reader/codecs.js').CodecSpec} */
      const codec = { name: 'blosc', cname, shuffle, itemSize: 2 };
      return { cname, shuffle, codec, bytes, encoded: new Uint8Array(readFileSync(join(dir, 'blosc', `${cname}-${shuffle}.bin`))) };
    }),
  );
}

test('every blosc flags byte either decodes to the values or is refused', async () => {
  for (const { cname, shuffle, codec, bytes, encoded } of bloscSamples()) {
    assert.deepEqual(await decodeBytes(codec, encoded, bytes.length, 'x'), bytes);
    let accepted = 0;
    for (let flags = 0; flags < 256; flags++) {
      const damaged = encoded.slice();
      damaged[2] = flags;
      let out;
      try {
        out = await decodeBytes(codec, damaged, bytes.length, 'x');
      } catch (err) {
        assert.equal(/** @type {Error} */ (err).name, 'StoreError');
        continue;
      }
      assert.deepEqual(out, bytes, `${cname}/${shuffle}: flags 0x${flags.toString(16)} decoded to other values`);
      accepted++;
    }
    assert.ok(accepted >= 1);
  }
  assert.throws(() => checkBloscHeader(new Uint8Array(8), 16, {}), /shorter than its 16-byte header/);
});

test('a blosc header naming a stream format other than 1 is refused, not decoded to other values', async () => {
  for (const { codec, bytes, encoded } of bloscSamples()) {
    for (let version = 0; version < 256; version++) {
      if (version === encoded[1]) continue;
      const damaged = encoded.slice();
      damaged[1] = version;
      await assert.rejects(decodeBytes(codec, damaged, bytes.length, 'x'), (/** @type {Error} */ err) => err.name === 'StoreError' && /stream format/.test(err.message));
    }
  }
});

test('a zstd frame that declares no size decodes within the bound the chunk implies', async () => {
  const frame = streamedZstd(1 << 20);
  assert.deepEqual(await decodeBytes({ name: 'zstd' }, frame, 1 << 20, 'x'), new Uint8Array(1 << 20).fill(7));
  // Declared smaller or larger than it holds, the frame does not decode: our error, naming the chunk.
  await assert.rejects(decodeBytes({ name: 'zstd' }, frame, 1 << 19, 'x'), { name: 'StoreError', message: /^x: .*zstd frame is corrupt.* 524288 bytes/ });
  await assert.rejects(decodeBytes({ name: 'zstd' }, frame, (1 << 20) + 2, 'x'), { name: 'StoreError', message: /^x: .*zstd frame is corrupt.* 1048578 bytes/ });
});

test('a checksummed store (--checksum) reads as the plain one, and a damaged chunk is refused by its crc32c', async () => {
  const { openStore } = await import('../src/index.js');
  const plain = await openStore(join(dir, 'hosts', 'plain', 's'), { workers: 0 });
  const honest = await openStore(join(dir, 'checksum', 'honest'), { workers: 0 });
  const damaged = await openStore(join(dir, 'checksum', 'damaged'), { workers: 0 });
  try {
    assert.deepEqual((await honest.getCell(0, 0, 0, 2)).data, (await plain.getCell(0, 0, 0, 2)).data);
    await assert.rejects(damaged.getCell(0, 0, 0, 2), (/** @type {Error} */ err) => err.name === 'StoreError' && /crc32c does not match/.test(err.message) && err.message.includes('0/data/c/2/0/0/0'));
    assert.deepEqual((await damaged.getCell(0, 0, 0, 1)).data, (await plain.getCell(0, 0, 0, 1)).data); // the other chunks read
  } finally {
    plain.close();
    honest.close();
    damaged.close();
  }
});
