/**
 * What sits on the map: the legend with the stretch controls, the scale bar and the cursor
 * readout, and the automatic stretch they follow (2nd to 98th percentile of the valid values the
 * frame on screen drew, with their extent for the legend's bar).
 * @module
 */
import { createCursorReadout } from './cursor.js';
import { createLegend } from '../lib/legend.js';
import { legendFor } from '../lib/legend-spec.js';
import { createScaleBar, scaleFor } from './scalebar.js';
import { stretchStats } from '../lib/stretch.js';

/**
 * @typedef {object} StretchState
 * @property {string} product
 * @property {number} band
 * @property {import('../lib/typedefs.js').Camera} cam
 * @property {[number, number] | null} range the stretch set by hand
 * @property {[number, number] | null} auto the automatic stretch
 * @property {[number, number] | null} extent the values on screen, lowest and highest
 */

/**
 * @param {object} o
 * @param {import('../lib/typedefs.js').Store} o.store
 * @param {HTMLElement} o.host where the legend and scale bar go
 * @param {HTMLElement} o.stage where the cursor readout goes
 * @param {HTMLCanvasElement} o.canvas
 * @param {StretchState} o.state read and written (auto, extent)
 * @param {(bands: number[]) => Float64Array} o.sample valid physical values of bands on screen
 * @param {(px: number, py: number) => import('./cursor.js').CursorInfo | null} o.locate
 * @param {(range: [number, number] | null) => void} o.setRange null: back to the automatic stretch
 */
export function createOverlays({ store, host, stage, canvas, state, sample, locate, setRange }) {
  const scale = createScaleBar(host);
  const legend = createLegend(host, { onRange: (r) => setRange(r), onAuto: () => setRange(null) });
  const cursor = createCursorReadout(stage, { store, canvas, locate });
  let key = '';

  return {
    legend,
    scale,
    cursor,
    /** @param {ReturnType<typeof import('../lib/products.js').lookFor>} look */
    look(look) {
      legend.update(legendFor(store, look, state));
    },
    /** The camera moved. */
    view() {
      scale.update(scaleFor(store, state.cam));
    },
    /**
     * A frame was painted: follow its values when the look is a linear stretch. True when the
     * automatic stretch changed (the look must be applied again).
     * @param {Pick<import('../lib/scene.js').FrameRecord, 't' | 'lod' | 'complete' | 'cells'>} frame
     * @param {ReturnType<typeof import('../lib/products.js').lookFor>} look
     * @param {boolean} playing during playback the stretch found first is kept (no flicker)
     */
    frame(frame, look, playing) {
      cursor.refresh();
      if (look.mode !== 'linear' || !frame.cells.length) return false;
      const k = `${playing ? 'play' : frame.t}|${frame.lod}|${frame.complete}|${frame.cells.length}|${state.cam.cx.toFixed(1)},${state.cam.cy.toFixed(1)},${state.cam.zoom.toFixed(4)}|${state.product}|${state.band}|${Boolean(state.range)}`;
      if (k === key || (playing && state.auto)) return false;
      key = k;
      const stats = stretchStats(sample(look.bands));
      if (!stats) return false;
      state.extent = stats.extent;
      const changed = !state.range && (!state.auto || stats.range[0] !== state.auto[0] || stats.range[1] !== state.auto[1]);
      if (changed) state.auto = stats.range;
      else legend.update(legendFor(store, look, state));
      return changed;
    },
    /** Forget the stretch of the last frame (product, band or range changed). */
    reset() {
      key = '';
    },
  };
}
