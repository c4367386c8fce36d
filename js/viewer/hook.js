/**
 * The viewer's instrumentation for tests and benchmarks: the hook (whether the viewer is up, its
 * frames, when the first ones came, the last click, the playback state) that the standalone page
 * sets as `window.__chronozarrViewer` and mountViewer hands out as `api`, and the calls the hook's
 * `api` offers once the viewer is wired. Nothing in the viewer reads them back.
 * @module
 */
import { pixelToScreen } from '../lib/camera.js';
import { snapSpeed } from './playback.js';

/**
 * Instrumentation for tests and benchmarks (read-only use, please): whether the viewer is up, its
 * frames, when the first ones came, and its parts (`api`).
 * @typedef {object} Hook
 * @property {boolean} ready
 * @property {string | null} error
 * @property {import('../lib/scene.js').FrameRecord[]} frames the scene's frame records
 * @property {Record<string, unknown>} api the calls of viewerApi, once the viewer is wired
 * @property {number} [openStartAt] performance.now() when the store began to open
 * @property {number} [openedAt] when it was open
 * @property {number} [firstFrameAt] when the first frame was painted
 * @property {number} [firstCompleteAt] when the first complete frame was painted
 * @property {{ requests: number, bytes: number }} [firstCompleteReads] the reads until then
 * @property {string} [permalink] the address of the view now
 * @property {ReturnType<typeof import('./reports.js').clickReport>['message'] & { stored: number[] }} [lastClick] the last click's message
 * @property {string} [playback] the playback state
 * @property {import('./history-warm.js').WarmReport} [historyWarm] the last warm-up of the history's shard indexes
 */

/**
 * A viewer's hook, on `window` when the viewer is the whole page.
 * @param {boolean} page
 * @returns {Hook}
 */
export function createHook(page) {
  /** @type {Hook} */
  const hook = { ready: false, error: null, frames: [], api: {} };
  if (page) Object.assign(window, { __chronozarrViewer: hook });
  return hook;
}

/**
 * @typedef {object} ApiParts the wired parts the API calls
 * @property {import('../lib/typedefs.js').Store} store
 * @property {import('./first-view.js').ViewState} state
 * @property {ReturnType<typeof import('../lib/scene.js').createScene>} scene
 * @property {ReturnType<typeof import('./renderer.js').createRenderer>} renderer
 * @property {{ readonly size: import('../lib/typedefs.js').CanvasSize }} nav
 * @property {import('./clock.js').Clock} clock
 * @property {ReturnType<typeof import('./playback.js').createPlayback>} playback
 * @property {ReturnType<typeof import('./pick.js').createPick>['clickAt']} clickAt
 * @property {ReturnType<typeof import('./embed.js').createEmbed>} embed
 * @property {ReturnType<typeof import('./showing.js').createShowing>} shown
 * @property {ReturnType<typeof import('./compare.js').createCompare>} compare
 * @property {ReturnType<typeof import('./tools.js').createTools>} tools
 * @property {ReturnType<typeof import('./pick.js').createPick>['inspector']} inspector
 * @property {ReturnType<typeof import('./regions.js').createRegions>} regions
 */

/** The calls tests and benchmarks make of a wired viewer (`hook.api`). @param {ApiParts} o */
export function viewerApi({ store, state, scene, renderer, nav, clock, playback, clickAt, embed, shown, compare, tools, inspector, regions }) {
  return {
    store,
    scene,
    state: () => ({ ...state, shownT: scene.shownT, lod: scene.lod, settled: scene.settled, playing: playback.playing, speed: playback.speed, pending: scene.pending }),
    pixel: (/** @type {number} */ x, /** @type {number} */ y) => renderer.readPixel(x, y),
    screenOf: (/** @type {number} */ x, /** @type {number} */ y) => pixelToScreen(state.cam, nav.size.w, nav.size.h, x, y),
    /** @param {number} px @param {number} py screen point @param {{ shift?: boolean }} [how] */
    click: (px, py, how) => clickAt(px, py, how),
    setT: (/** @type {number} */ t) => clock.set(t, 'api'),
    play: () => playback.play(),
    stop: () => playback.stop(),
    setSpeed: (/** @type {number} */ s) => (playback.speed = snapSpeed(s)),
    setPlaybackBudget: (/** @type {number} */ bytes) => playback.setBudget(bytes),
    embedLog: embed.log,
    look: shown.look,
    compare,
    tools,
    overlays: shown.overlays,
    inspector,
    regions,
  };
}

/** @typedef {ReturnType<typeof viewerApi>} ViewerApi */

/** Put the API on the hook (its object, which mountViewer handed out already). @param {Hook} hook @param {ApiParts} parts */
export function exposeApi(hook, parts) {
  Object.assign(hook.api, viewerApi(parts));
}
