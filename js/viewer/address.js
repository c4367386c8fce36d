/**
 * The viewer's state in a URL: the page's address (replaced, not pushed) when the viewer is the
 * whole page, and the wordmark's link to the full viewer on the same view; written 200 ms after
 * the last change.
 * @module
 */
import { pixelToStore } from '../lib/camera.js';
import { fullViewerUrl, stateUrl } from './params.js';

/**
 * @param {object} o
 * @param {Pick<import('../lib/typedefs.js').Store, 'crs' | 'levels' | 'bands'>} o.store
 * @param {import('./params.js').ViewerParams} o.params
 * @param {{ page: boolean, fullViewer: string }} o.env
 * @param {import('./first-view.js').ViewState} o.state
 * @param {import('./clock.js').Clock} o.clock a change of timestep is written like any other change
 * @param {{ state: import('./compare.js').CompareState | null }} o.compare
 * @param {{ encoded: () => string | null }} o.regions the regions drawn, in the address's form
 * @param {HTMLAnchorElement} o.wordmark
 * @param {{ permalink?: string }} o.hook
 */
export function createAddress({ store, params, env, state, clock, compare, regions, wordmark, hook }) {
  const transform = store.crs != null ? store.levels[0].transform : null;
  /** @type {ReturnType<typeof setTimeout> | 0} */ let timer = 0;

  function write() {
    const c = pixelToStore(transform, state.cam.cx, state.cam.cy);
    const here = env.page ? location.href : `${env.fullViewer}?store=${encodeURIComponent(params.store ?? '')}`;
    const href = stateUrl(here, { t: state.t, product: state.product, band: store.bands[state.band], zoom: state.cam.zoom, center: [c.x, c.y], range: state.range, compare: compare.state, region: regions.encoded() });
    if (env.page) history.replaceState(history.state, '', href);
    wordmark.href = params.embed || !env.page ? fullViewerUrl(href) : href;
    hook.permalink = href;
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(write, 200);
  }

  clock.on(({ changed }) => changed && schedule());

  return { write, schedule, stop: () => clearTimeout(timer) };
}
