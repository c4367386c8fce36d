/**
 * The viewer's side of the embed API: a `chronozarr:set` checked (setfields.js) and applied
 * (apply-set.js) through the viewer's own setters, and the `chronozarr:ready` message's payload.
 * @module
 */
import { parseCrs } from '../lib/geo.js';
import { applySetFields } from './apply-set.js';
import { readyReport } from './reports.js';
import { validateSet } from './setfields.js';

/** @param {import('./app.js').Viewer} v every part made */
export function createEmbedSet(v) {
  const { store, state, params, products } = v;
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
      setBand: v.shown.setBand,
      setProduct: v.shown.setProduct,
      setT: (t) => v.clock.set(t, 'api'),
      moveTo: v.nav.moveTo,
      setSpeed: (speed) => {
        v.playback.speed = speed;
        v.controls.speed(v.playback.speed);
      },
      setCompare: (c) => v.compareChanged(c, true),
      setPlaying: (playing) => (playing ? v.playback.play() : v.playback.stop()),
      viewMoved: () => v.views.sendNow(),
    });
  }

  function readyPayload() {
    const about = { url: params.store, name: v.storeName, products };
    return readyReport(store, about, state, { playing: v.playback.playing, speed: v.playback.speed, compare: v.compare.state });
  }

  return { validate, applySet, readyPayload };
}
