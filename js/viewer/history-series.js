/**
 * The pixel history as data: the chart's series and caption for the pixels held (one to four) and
 * the CSV of their values. Pure functions of the store and what was read, so they are tested
 * without a page.
 * @module
 */
import { pixelToStore } from '../lib/camera.js';
import { toLonLat } from '../lib/geo.js';
import { bandUnits } from '../lib/legend-spec.js';
import { normalizedDifference, productBands } from '../lib/products.js';

/** At most this many pixels are charted at once. */
export const MAX_PIXELS = 4;
/** One colour per held pixel, in the order they were added. */
export const PIXEL_COLORS = /** @type {const} */ (['#ffb000', '#4cc9f0', '#f15bb5', '#8fd14f']);
/** The bands of one pixel: red, green, blue for a composite's roles in order. */
const BAND_COLORS = ['#e0605a', '#6cc070', '#5a9ee6'];
/** Several pixels: bands of one pixel share its colour and differ by dash. */
const BAND_DASHES = ['', '5 2', '1.5 1.5'];

/**
 * @typedef {object} HeldPixel
 * @property {number} id
 * @property {string} color
 * @property {number} lod level the values are read at (the level drawn when it was picked)
 * @property {number} x column at that level
 * @property {number} y row at that level
 * @property {number} x0 level-0 column picked
 * @property {number} y0 level-0 row picked
 * @property {({ bands: { name: string, stored: number, valid: boolean, value: number | null }[], valid: boolean } | null | undefined)[]} got
 *   per timestep: the pixel's values, null when the read failed, undefined until read
 */

/**
 * The chart's title and series for the held pixels and the product on screen: the index for NDVI,
 * NDWI and water, else the product's bands.
 * @param {{ attrs: { bands: readonly import('../lib/typedefs.js').Band[] } }} store
 * @param {HeldPixel[]} pixels
 * @param {{ product: string, band: number }} look
 * @returns {{ title: string, series: import('./chart.js').Series[] }}
 */
export function historySeries(store, pixels, { product, band }) {
  const bands = store.attrs.bands;
  const used = productBands(product, bands, band).filter((i) => i >= 0);
  const index = product === 'ndvi' || product === 'ndwi' || product === 'water' ? (product === 'ndvi' ? 'NDVI' : 'NDWI') : null;
  const one = pixels.length === 1;
  const series = [];
  for (const p of pixels) {
    const tag = one ? '' : `#${p.id} `;
    if (index) {
      const [a, b] = used;
      const values = p.got.map((v) => (v === undefined ? undefined : !v || !v.bands[a].valid || !v.bands[b].valid ? null : normalizedDifference(/** @type {number} */ (v.bands[a].value), /** @type {number} */ (v.bands[b].value))));
      series.push({ label: `${tag}${index}`, color: one ? '#7fc4ff' : p.color, values });
      continue;
    }
    used.forEach((i, k) => {
      const values = p.got.map((v) => (v === undefined ? undefined : v && v.bands[i].valid ? v.bands[i].value : null));
      const color = one ? (used.length === 1 ? '#d8dee9' : BAND_COLORS[k]) : p.color;
      series.push({ label: `${tag}${bands[i].name}`, color, dash: one ? '' : BAND_DASHES[k], values });
    });
  }
  const units = used.length ? bandUnits(bands[used[0]]) : '';
  const what = index ? `${index} (index)` : `${used.map((i) => bands[i].name).join(', ')}${units ? ` (${units})` : ''}`;
  return { title: `${what} over time`, series };
}

/**
 * The chart's caption: what is charted, then for one pixel its level and the dates read so far (all
 * read: its gaps), for several how many; and how to use the chart.
 * @param {number} nTime the store's timesteps
 * @param {HeldPixel[]} pixels at least one
 * @param {{ title: string, series: import('./chart.js').Series[] }} charted historySeries' result
 */
export function historyCaption(nTime, pixels, { title, series }) {
  const gaps = series.map((s) => s.values.filter((v) => v === null).length);
  // Dates still being read are no gaps: until the last arrives the caption counts what is in.
  const read = pixels[0].got.filter((v) => v !== undefined).length;
  const count = read < nTime ? `${read} of ${nTime} dates read` : `${gaps[0]} gap${gaps[0] === 1 ? '' : 's'}`;
  const where = pixels.length === 1 ? `${pixels[0].lod ? `level ${pixels[0].lod}` : 'level 0'} · ${count}` : `${pixels.length} pixels`;
  return `${title} · ${where}. Click the chart to jump to a date, drag across it to zoom in time.`;
}

const CSV_HEADER = ['pixel', 'x', 'y', 'level', 'level_x', 'level_y', 'lon', 'lat', 'time', 'band', 'stored', 'physical', 'valid', 'coverage'];

/**
 * The held pixels' values as CSV, one row per pixel, date and band: stored value, physical value
 * (empty when invalid), validity and coverage (empty when the store has none).
 * @param {Pick<import('../lib/typedefs.js').Store, 'crs' | 'levels' | 'times' | 'attrs'>} store
 * @param {HeldPixel[]} pixels
 * @param {((number | null)[] | null)[]} coverage per pixel, per timestep
 */
export function historyCsv(store, pixels, coverage) {
  const transform = store.crs != null ? store.levels[0].transform : null;
  const lines = [CSV_HEADER.join(',')];
  pixels.forEach((p, k) => {
    const s = 2 ** p.lod;
    const c = pixelToStore(transform, (p.x + 0.5) * s, (p.y + 0.5) * s);
    const ll = store.crs != null ? toLonLat(store.crs, c.x, c.y) : null;
    const where = [p.id, p.x0, p.y0, p.lod, p.x, p.y, ll ? ll.lon.toFixed(7) : '', ll ? ll.lat.toFixed(7) : ''];
    store.times.forEach((time, t) => {
      const v = p.got[t];
      const cov = coverage[k]?.[t];
      store.attrs.bands.forEach((band, b) => {
        const px = v ? v.bands[b] : null;
        const row = [...where, time, band.name, px ? px.stored : '', px && px.valid ? px.value : '', px ? px.valid : '', cov ?? ''];
        lines.push(row.map(csvField).join(','));
      });
    });
  });
  return `${lines.join('\n')}\n`;
}

/** @param {unknown} v */
function csvField(v) {
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
