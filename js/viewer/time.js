/**
 * The viewer's timestep: the timeline, the date, the `chronozarr:time` message, and playback with
 * its button and buffering status. Picking a timestep by hand stops playback.
 * @module
 */
import { createPlayback } from './playback.js';
import { createTimeline } from './timeline.js';

/** @param {import('./app.js').Viewer} v the scene made; the rest read on a change */
export function createTime(v) {
  const { store, state, $, label, scene } = v;
  const n = store.times.length;
  const timeline = createTimeline($('timeline'), { times: store.times, onPick: (t) => setT(t), label });

  /** @param {number} t @param {{ fromPlayback?: boolean }} [how] */
  function setT(t, { fromPlayback = false } = {}) {
    t = Math.max(0, Math.min(n - 1, Math.trunc(t)));
    if (!fromPlayback && playback.playing && t !== state.t) playback.stop();
    const changed = t !== state.t;
    state.t = t;
    scene.setTime(t);
    v.loading.watch();
    timeline.set(t);
    $('date').textContent = `${label(t)}  (${t + 1}/${n})`;
    v.compare.layout();
    if (changed) {
      v.embed.send('chronozarr:time', { t, time: store.times[t] });
      v.address.schedule();
    }
  }

  function lastPaintedT() {
    const f = scene.frames[scene.frames.length - 1];
    return f ? f.t : null;
  }

  const playback = createPlayback({
    store,
    view: () => ({ lod: scene.lod, cells: scene.visibleAt(scene.lod) }),
    position: () => ({ wanted: state.t, painted: scene.settled ? lastPaintedT() : null }),
    step: (t) => setT(t, { fromPlayback: true }),
    stored: scene.shaderDelta,
    onState: (s, detail) => {
      const btn = $('play');
      btn.textContent = s === 'stopped' ? '▶' : '❚❚';
      btn.setAttribute('aria-label', s === 'stopped' ? 'Play' : 'Pause');
      btn.setAttribute('aria-pressed', String(s !== 'stopped'));
      $('status').className = 'status';
      $('status').textContent = s === 'buffering' ? `Buffering the loop… ${detail ?? ''}` : '';
      scene.setPlaying(s !== 'stopped');
      v.hook.playback = s;
    },
    onFail: (message) => {
      v.notices.toast(message);
      v.embed.error('playback_failed', message);
    },
  });
  playback.speed = 4;

  return { setT, playback };
}
