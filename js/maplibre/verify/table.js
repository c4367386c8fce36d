/**
 * The placement table of maplibre/README.md, from the JSON the placement e2e test writes:
 *
 *   PLACEMENT_RESULTS=maplibre/verify/results.json node --test e2e/maplibre-placement.test.mjs
 *   node maplibre/verify/table.js maplibre/verify/results.json
 *
 * rewrites what lies between the README's `<!-- placement:begin -->` and `<!-- placement:end -->`.
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * @typedef {{ zoom: number, bearing: number, pitch: number, level: number, boundaries: number, maxErrorPx: number, meanErrorPx: number, outline: number, outlineMaxErrorPx: number, missing: number, holes?: number, changes?: number, strays?: number }} Row
 * @typedef {{ store: string, viewport: string, texelPx: number, subpixelBits: number, limitPx: number, renderer?: string, rows: Row[] }} Results
 */

const BEGIN = '<!-- placement:begin -->';
const END = '<!-- placement:end -->';

/** The table as Markdown. @param {Results} r */
export function placementTable(r) {
  const px = (/** @type {number} */ v) => v.toFixed(4);
  const lines = [
    `Measured on ${r.store}, a ${r.viewport} map, texels of the level drawn about ${r.texelPx} CSS px at the view's centre` +
      `${r.renderer ? `, ${r.renderer}` : ''} (SUBPIXEL_BITS ${r.subpixelBits}); limit ${px(r.limitPx)} px.`,
    '',
    '| zoom | bearing | pitch | level | boundaries checked | max error px | mean offset px | outline checked | outline max error px | boundaries not drawn | holes | colour changes | stray |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...r.rows.map((w) => `| ${w.zoom} | ${w.bearing} | ${w.pitch} | ${w.level} | ${w.boundaries} | ${px(w.maxErrorPx)} | ${px(w.meanErrorPx)} | ${w.outline} | ${px(w.outlineMaxErrorPx)} | ${w.missing} | ${w.holes ?? '-'} | ${w.changes ?? '-'} | ${w.strays ?? '-'} |`),
  ];
  return lines.join('\n');
}

/** `readme` with the table between the markers. @param {string} readme @param {Results} r */
export function withTable(readme, r) {
  const a = readme.indexOf(BEGIN);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error(`the README has no ${BEGIN} ... ${END} section to write the table in`);
  return `${readme.slice(0, a + BEGIN.length)}\n${placementTable(r)}\n${readme.slice(b)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node maplibre/verify/table.js RESULTS.json');
  const readme = join(dirname(fileURLToPath(import.meta.url)), '..', 'README.md');
  writeFileSync(readme, withTable(readFileSync(readme, 'utf8'), JSON.parse(readFileSync(file, 'utf8'))));
}
