/**
 * The viewer's side of the embed API: a `chronozarr:set` checked (setfields.js) and applied
 * (apply-set.js) through the viewer's own setters, and the `chronozarr:ready` message's payload.
 * @module
 */
import { parseCrs } from '../lib/geo.js';
import { applySetFields } from './apply-set.js';
import { readyReport } from './reports.js';
import { validateSet } from './setfields.js';

/**
 * @typedef {object} EmbedSetParts the setters a set goes through, and what the ready message reports
 * @property {import('../lib/typedefs.js').Store} store
 * @property {import('./first-view.js').ViewState} state
 * @property {import('./params.js').ViewerParams} params as opened (its store's URL is reported)
 * @property {string} storeName
 * @property {{ id: string, name: string, available: boolean }[]} products
 * @property {Pick<ReturnType<typeof import('./showing.js').createShowing>, 'setBand' | 'setProduct'>} shown
 * @property {import('./clock.js').Clock} clock
 * @property {Pick<ReturnType<typeof import('./navigate.js').createNavigation>, 'moveTo'>} nav
 * @property {ReturnType<typeof import('./playback.js').createPlayback>} playback
 * @property {Pick<ReturnType<typeof import('./controls.js').createControls>, 'speed'>} controls
 * @property {{ readonly state: import('./compare.js').CompareState | null }} compare
 * @property {(c: import('./compare.js').CompareState | null, set: boolean) => void} compareChanged
 * @property {{ sendNow: () => void }} views
 * @property {{ set: (shapes: import('./region-shapes.js').RegionShape[]) => void }} regions
 */

/** @param {EmbedSetParts} o */
export function createEmbedSet({ store, state, params, storeName, products, shown, clock, nav, playback, controls, compare, compareChanged, views, regions }) {
  const geoOk = store.crs != null && parseCrs(store.crs) != null;

  /** @param {Record<string, unknown>} fields a set's fields as the host sent them */
  function validate(fields) {
    return validateSet(fields, { store, products, geoOk });
  }

  /** @param {Record<string, unknown>} fields */
  function applySet(fields) {
    const checked = validate(fields);
    if (!checked.ok) return;
    applySetFields(checked.values, store, state.cam, {
      setBand: shown.setBand,
      setProduct: shown.setProduct,
      setT: (t) => clock.set(t, 'api'),
      moveTo: nav.moveTo,
      setSpeed: (speed) => {
        playback.speed = speed;
        controls.speed(playback.speed);
      },
      setCompare: (c) => compareChanged(c, true),
      setPlaying: (playing) => (playing ? playback.play() : playback.stop()),
      setRegions: (shapes) => regions.set(shapes),
      viewMoved: () => views.sendNow(),
    });
  }

  function readyPayload() {
    const about = { url: params.store, name: storeName, products };
    return readyReport(store, about, state, { playing: playback.playing, speed: playback.speed, compare: compare.state });
  }

  return { validate, applySet, readyPayload };
}
