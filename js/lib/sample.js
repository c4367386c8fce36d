/**
 * Physical values of drawn chunks inside a view, evenly strided, for the percentile stretch.
 * @module
 */

/**
 * Valid physical values of the given bands over the chunks `entries` of level k inside the level-0
 * box, at most about `limit` of them (one stride over rows and columns). Masked pixels and, for a
 * store without a mask, nodata values are left out.
 * @param {{ nodata: number | null, attrs: { bands: readonly { scale: number, offset: number }[] }, levels: readonly { chunkSize: number }[] }} store
 * @param {number} k
 * @param {{ row: number, col: number, cell: { data: ArrayLike<number>, mask?: Uint8Array, chunkWidth: number, chunkHeight: number, width: number, height: number } }[]} entries
 * @param {import('./typedefs.js').Rect} box level-0 pixels
 * @param {number[]} bands band indices, -1 for none
 * @param {number} limit
 */
export function sampleValues(store, k, entries, box, bands, limit) {
  const used = bands.filter((b) => b >= 0);
  const nodata = store.nodata;
  const s = 2 ** k;
  let total = 0;
  for (const e of entries) total += e.cell.width * e.cell.height;
  const stride = Math.max(1, Math.floor(Math.sqrt((total * used.length) / limit)));
  const out = [];
  for (const e of entries) {
    const { data, mask, chunkWidth: cw, chunkHeight: ch } = e.cell;
    const cs = store.levels[k].chunkSize;
    const ox = e.col * cs;
    const oy = e.row * cs;
    const ya = Math.max(0, Math.floor(box.y0 / s) - oy);
    const yb = Math.min(e.cell.height, Math.ceil(box.y1 / s) - oy);
    const xa = Math.max(0, Math.floor(box.x0 / s) - ox);
    const xb = Math.min(e.cell.width, Math.ceil(box.x1 / s) - ox);
    for (let y = ya; y < yb; y += stride) {
      for (let x = xa; x < xb; x += stride) {
        const i = y * cw + x;
        if (mask && !mask[i]) continue;
        for (const b of used) {
          const raw = data[b * cw * ch + i];
          if (!mask && nodata != null && raw === nodata) continue;
          const band = store.attrs.bands[b];
          out.push(raw * band.scale + band.offset);
        }
      }
    }
  }
  return Float64Array.from(out);
}
