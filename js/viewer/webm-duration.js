/**
 * The Duration of a WebM from MediaRecorder: some browsers write none (a live stream: players show
 * no length), Chromium writes the last frame's timestamp, one frame short. The recorder knows the
 * length exactly; this writes it into the Segment's Info element, in place when a Duration is there
 * (EBML: Matroska IDs 0x18538067 Segment, 0x1549A966 Info, 0x2AD7B1 TimecodeScale, 0x4489 Duration,
 * a float in TimecodeScale units).
 * @module
 */

const SEGMENT = 0x18538067;
const INFO = 0x1549a966;
const CLUSTER = 0x1f43b675;
const TIMECODE_SCALE = 0x2ad7b1;
const DURATION = 0x4489;

/**
 * An element's header at `p`: its ID (marker bits kept), data size (Infinity when unknown) and
 * where its data starts; null when the bytes end first.
 * @param {Uint8Array} b @param {number} p
 */
function element(b, p) {
  const idLen = vintLength(b[p]);
  if (!idLen || idLen > 4 || p + idLen >= b.length) return null;
  let id = 0;
  for (let i = 0; i < idLen; i++) id = id * 256 + b[p + i];
  const sizeLen = vintLength(b[p + idLen]);
  if (!sizeLen || p + idLen + sizeLen > b.length) return null;
  let size = b[p + idLen] & (0xff >> sizeLen);
  let allOnes = size === 0xff >> sizeLen;
  for (let i = 1; i < sizeLen; i++) {
    size = size * 256 + b[p + idLen + i];
    allOnes &&= b[p + idLen + i] === 0xff;
  }
  return { id, idLen, sizeLen, size: allOnes ? Infinity : size, data: p + idLen + sizeLen };
}

/** Bytes of the vint whose first byte is `first` (1..8), 0 for an invalid one. @param {number} first */
function vintLength(first) {
  for (let n = 1; n <= 8; n++) if (first & (0x80 >> (n - 1))) return n;
  return 0;
}

/** @typedef {NonNullable<ReturnType<typeof element>>} EbmlElement */

/** `size` as a vint of exactly `len` bytes, or null when it does not fit. @param {number} size @param {number} len */
function vint(size, len) {
  if (size >= 2 ** (7 * len) - 1) return null;
  const out = new Uint8Array(len);
  let v = size;
  for (let i = len - 1; i >= 0; i--) {
    out[i] = v % 256;
    v = Math.floor(v / 256);
  }
  out[0] |= 0x80 >> (len - 1);
  return out;
}

/**
 * The file with Duration set to `ms` milliseconds, or null when its layout is not the one expected.
 * @param {Uint8Array} b
 * @param {number} ms
 */
export function withDuration(b, ms) {
  const head = element(b, 0);
  const seg = head && element(b, head.data + head.size);
  if (!seg || seg.id !== SEGMENT) return null;
  for (let p = seg.data; p < b.length;) {
    const el = element(b, p);
    if (!el || el.id === CLUSTER || el.size === Infinity) return null;
    if (el.id === INFO) return infoWithDuration(b, seg, head.data + head.size, p, el, ms);
    p = el.data + el.size;
  }
  return null;
}

/** @param {Uint8Array} b @param {EbmlElement} seg @param {number} segAt @param {number} at @param {EbmlElement} info @param {number} ms */
function infoWithDuration(b, seg, segAt, at, info, ms) {
  let scale = 1e6;
  let found = null;
  for (let p = info.data; p < info.data + info.size;) {
    const el = element(b, p);
    if (!el) return null;
    if (el.id === TIMECODE_SCALE) scale = [...b.subarray(el.data, el.data + el.size)].reduce((v, x) => v * 256 + x, 0);
    if (el.id === DURATION) found = el;
    p = el.data + el.size;
  }
  if (found) return replaceDuration(b, found, (ms * 1e6) / scale);
  const duration = new Uint8Array(11);
  duration.set([0x44, 0x89, 0x88]);
  new DataView(duration.buffer).setFloat64(3, (ms * 1e6) / scale);
  const size = vint(info.size + duration.length, info.sizeLen) ?? vint(info.size + duration.length, 8);
  if (!size) return null;
  const grow = duration.length + size.length - info.sizeLen;
  let segSize = b.subarray(segAt + seg.idLen, seg.data);
  if (seg.size !== Infinity) {
    const s = vint(seg.size + grow, seg.sizeLen);
    if (!s) return null;
    segSize = s;
  }
  const parts = [b.subarray(0, segAt + seg.idLen), segSize, b.subarray(seg.data, at + info.idLen), size, b.subarray(info.data, info.data + info.size), duration, b.subarray(info.data + info.size)];
  const out = new Uint8Array(parts.reduce((n, x) => n + x.length, 0));
  let o = 0;
  for (const x of parts) {
    out.set(x, o);
    o += x.length;
  }
  return out;
}

/** A copy with the Duration element's float (4 or 8 bytes) set to v. @param {Uint8Array} b @param {EbmlElement} el @param {number} v */
function replaceDuration(b, el, v) {
  if (el.size !== 4 && el.size !== 8) return null;
  const out = b.slice();
  const view = new DataView(out.buffer, el.data, el.size);
  if (el.size === 8) view.setFloat64(0, v);
  else view.setFloat32(0, v);
  return out;
}

/**
 * @param {Blob} blob a WebM
 * @param {number} ms
 * @returns {Promise<Blob>} the same video with its Duration (the input when it cannot be set)
 */
export async function setWebmDuration(blob, ms) {
  const out = withDuration(new Uint8Array(await blob.arrayBuffer()), ms);
  return out ? new Blob([out], { type: blob.type }) : blob;
}
