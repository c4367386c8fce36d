/**
 * What shows and moves the viewer's timestep (held by clock.js): the timeline, the date, the
 * `chronozarr:time` message, and playback with its button and buffering status. Each listens for
 * the clock's changes; a timestep picked by anyone but playback stops playback.
 * @module
 */
import { createPlayback } from './playback.js';
import { createTimeline } from './timeline.js';

/**
 * @param {object} o
 * @param {import('../lib/typedefs.js').Store} o.store
 * @param {ReturnType<typeof import('../lib/dom.js').idLookup>} o.$ the viewer's element by id
 * @param {(t: number) => string} o.label a timestep's date
 * @param {import('../lib/typedefs.js').Scene} o.scene the scene playback waits for
 * @param {import('./clock.js').Clock} o.clock
 * @param {Pick<ReturnType<typeof import('./embed.js').createEmbed>, 'send' | 'error'>} o.embed
 * @param {Pick<ReturnType<typeof import('./notices.js').createNotices>, 'toast'>} o.notices
 * @param {{ playback?: string }} o.hook where the playback state is shown to tests
 */
export function createTime({ store, $, label, scene, clock, embed, notices, hook }) {
  const n = store.times.length;
  createTimeline($('timeline'), { times: store.times, clock, label });
  clock.on(({ t, changed, source }) => {
    if (changed && source !== 'playback' && playback.playing) playback.stop();
    $('date').textContent = `${label(t)}  (${t + 1}/${n})`;
    if (changed) embed.send('chronozarr:time', { t, time: store.times[t] });
  });
  /** Ask for timestep t, as a person or the API does. @param {number} t */
  const setT = (t) => clock.set(t);

  function lastPaintedT() {
    const f = scene.frames[scene.frames.length - 1];
    return f ? f.t : null;
  }

  const playback = createPlayback({
    store,
    view: () => ({ lod: scene.lod, cells: scene.visibleAt(scene.lod) }),
    position: () => ({ wanted: clock.t, painted: scene.settled ? lastPaintedT() : null }),
    loop: () => scene.loop,
    step: (t) => clock.set(t, 'playback'),
    onState: (s, detail) => {
      const btn = $('play');
      btn.textContent = s === 'stopped' ? '▶' : '❚❚';
      btn.setAttribute('aria-label', s === 'stopped' ? 'Play' : 'Pause');
      btn.setAttribute('aria-pressed', String(s !== 'stopped'));
      $('status').className = 'status';
      $('status').textContent = s === 'buffering' ? `Buffering the loop… ${detail ?? ''}` : '';
      scene.setPlaying(s !== 'stopped');
      hook.playback = s;
    },
    onFail: (message) => {
      notices.toast(message);
      embed.error('playback_failed', message);
    },
  });
  playback.speed = 4;

  return { setT, playback };
}
