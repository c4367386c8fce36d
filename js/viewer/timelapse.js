/**
 * The time-lapse export: the view recorded over a range of dates at a chosen speed as a WebM video
 * (MediaRecorder on a 2D canvas that composes each frame with its date, legend and scale). A date's
 * frame is taken only once it is complete, and the frames are played into the recorder at exact
 * intervals afterwards, so every date lasts one frame interval however long it took to load.
 * @module
 */
import { context2d, findElement } from '../lib/dom.js';
import { createDialog } from './dialog.js';
import { saveBlob } from './download.js';
import { setWebmDuration } from './webm-duration.js';

/** Frames per second offered. */
export const VIDEO_FPS = /** @type {const} */ ([1, 2, 4, 6, 8, 10, 12, 15, 24, 30]);
const MIME = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'];
/** Frames kept while a video is made (decoded RGBA): more dates or a larger view are refused. */
const MAX_FRAME_BYTES = 768 * 2 ** 20;
/** Longest wait for one date's frame before the recording gives up. */
const FRAME_TIMEOUT_MS = 60_000;

/**
 * @typedef {object} TimelapseHost
 * @property {Pick<import('../lib/typedefs.js').Store, 'times'>} store
 * @property {(t: number) => string} label
 * @property {(t: number) => void} setT
 * @property {() => number} t
 * @property {() => import('../lib/typedefs.js').Scene[]} scenes the scenes painting the canvas (one, or two in a split view)
 * @property {(out: HTMLCanvasElement) => void} compose the current view, composed
 * @property {() => void} stopPlayback
 * @property {string} fileStem
 */

/**
 * Resolves once every scene shows its asked timestep with every visible cell, painted.
 * @param {Pick<import('../lib/typedefs.js').Scene, 'frames' | 'settled' | 'wantedT'>[]} scenes
 * @param {AbortSignal} signal
 */
export async function whenExact(scenes, signal) {
  const start = performance.now();
  const exact = () => scenes.every((s) => {
    const f = s.frames[s.frames.length - 1];
    return s.settled && f && f.t === s.wantedT && f.complete;
  });
  while (!exact()) {
    if (signal.aborted) throw new DOMException('recording cancelled', 'AbortError');
    if (performance.now() - start > FRAME_TIMEOUT_MS) throw new Error(`a frame did not complete within ${FRAME_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => requestAnimationFrame(r));
  }
}

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Record dates `from`..`to` (inclusive) at `fps`; resolves with the WebM and its frame count.
 * MediaRecorder stamps frames with the wall clock, so the frames are made first (each once its
 * date's frame is complete) and then played into the recorder at exact intervals.
 * @param {TimelapseHost} app
 * @param {{ from: number, to: number, fps: number, signal: AbortSignal, onProgress: (text: string, f: number) => void }} o
 */
export async function recordTimelapse(app, { from, to, fps, signal, onProgress }) {
  const mimeType = MIME.find((m) => MediaRecorder.isTypeSupported(m));
  if (!mimeType) throw new Error('this browser cannot record WebM video (MediaRecorder)');
  app.stopPlayback();
  const out = document.createElement('canvas');
  app.compose(out);
  const total = to - from + 1;
  const bytes = total * out.width * out.height * 4;
  if (bytes > MAX_FRAME_BYTES) {
    throw new Error(`${total} frames of ${out.width} x ${out.height} need ${Math.round(bytes / 2 ** 20)} MB while they are recorded (at most ${MAX_FRAME_BYTES / 2 ** 20} MB): choose fewer dates or a smaller window`);
  }
  /** @type {ImageBitmap[]} */
  const frames = [];
  try {
    for (let i = 0; i < total; i++) {
      app.setT(from + i);
      await whenExact(app.scenes(), signal);
      app.compose(out);
      frames.push(await createImageBitmap(out));
      onProgress(`Rendering ${app.label(from + i)} (${i + 1}/${total})`, (0.8 * (i + 1)) / total);
    }
    const blob = await play(frames, out, { mimeType, fps, signal, onProgress });
    return { blob: await setWebmDuration(blob, (total * 1000) / fps), frames: total };
  } finally {
    for (const f of frames) f.close();
  }
}

/**
 * Play frames into a MediaRecorder, one every 1/fps s by the clock (the schedule corrects its own drift).
 * @param {ImageBitmap[]} frames
 * @param {HTMLCanvasElement} canvas sized as the frames
 * @param {{ mimeType: string, fps: number, signal: AbortSignal, onProgress: (text: string, f: number) => void }} o
 */
async function play(frames, canvas, { mimeType, fps, signal, onProgress }) {
  const ctx = context2d(canvas);
  const stream = canvas.captureStream(0);
  const track = /** @type {CanvasCaptureMediaStreamTrack} */ (stream.getVideoTracks()[0]);
  const recorder = new MediaRecorder(stream, { mimeType, videoBitsPerSecond: 16e6 });
  /** @type {Blob[]} */
  const chunks = [];
  recorder.ondataavailable = (e) => e.data.size && chunks.push(e.data);
  const stopped = new Promise((r) => (recorder.onstop = r));
  recorder.start();
  const t0 = performance.now();
  try {
    for (let i = 0; i < frames.length; i++) {
      if (signal.aborted) throw new DOMException('recording cancelled', 'AbortError');
      ctx.drawImage(frames[i], 0, 0);
      track.requestFrame();
      onProgress(`Recording frame ${i + 1}/${frames.length}`, 0.8 + (0.2 * (i + 1)) / frames.length);
      await sleep(Math.max(0, t0 + ((i + 1) * 1000) / fps - performance.now()));
    }
  } finally {
    recorder.stop();
    await stopped;
    track.stop();
  }
  return new Blob(chunks, { type: mimeType.split(';')[0] });
}

/**
 * The Video dialog: range, speed, Record, progress.
 * @param {HTMLElement} host
 * @param {TimelapseHost} app
 */
export function createTimelapse(host, app) {
  const n = app.store.times.length;
  const options = (/** @type {number} */ sel) => app.store.times.map((_, t) => `<option value="${t}"${t === sel ? ' selected' : ''}>${app.label(t)}</option>`).join('');
  const dialog = createDialog(host, {
    label: 'Record a time-lapse video',
    className: 'video',
    html: `<h2>Time-lapse video</h2>
      <p>Records the view as it is now over a range of dates. Each date waits for its complete frame; the date, legend and scale are burned in.</p>
      <div class="video-fields"><label>From <select class="video-from">${options(0)}</select></label>
      <label>to <select class="video-to">${options(n - 1)}</select></label>
      <label>Frames per second <select class="video-fps">${VIDEO_FPS.map((f) => `<option${f === 4 ? ' selected' : ''}>${f}</option>`).join('')}</select></label></div>
      <progress class="video-progress" max="1" value="0" aria-label="Recording progress"></progress>
      <p class="video-status" role="status"></p>
      <div class="video-buttons"><button type="button" class="video-record">Record WebM</button><button type="button" class="video-close">Close</button></div>`,
  });
  const [fromSelect, toSelect, fpsSelect] = ['.video-from', '.video-to', '.video-fps'].map((s) => findElement(dialog.el, s, HTMLSelectElement));
  const progress = findElement(dialog.el, '.video-progress', HTMLProgressElement);
  const status = findElement(dialog.el, '.video-status', HTMLElement);
  const record = findElement(dialog.el, '.video-record', HTMLButtonElement);
  /** @type {AbortController | null} */
  let running = null;

  async function start() {
    const from = Number(fromSelect.value);
    const to = Number(toSelect.value);
    const fps = Number(fpsSelect.value);
    if (to < from) return void (status.textContent = 'The last date must not come before the first.');
    running = new AbortController();
    const back = app.t();
    record.disabled = true;
    status.textContent = 'Recording…';
    try {
      const { blob, frames } = await recordTimelapse(app, {
        from,
        to,
        fps,
        signal: running.signal,
        onProgress: (text, f) => {
          status.textContent = text;
          progress.value = f;
        },
      });
      saveBlob(blob, `${app.fileStem}_${app.label(from)}_${app.label(to)}_${fps}fps.webm`);
      status.textContent = `Saved ${frames} frames (${(frames / fps).toFixed(1)} s).`;
    } catch (err) {
      status.textContent = err instanceof Error && err.name === 'AbortError' ? 'Cancelled.' : `The recording failed: ${err instanceof Error ? err.message : err}`;
    } finally {
      running = null;
      record.disabled = false;
      app.setT(back);
    }
  }
  record.addEventListener('click', start);
  findElement(dialog.el, '.video-close', HTMLButtonElement).addEventListener('click', () => {
    running?.abort();
    dialog.close();
  });
  return {
    open: dialog.open,
    close: dialog.close,
    toggle: dialog.toggle,
    start,
    get isOpen() {
      return dialog.isOpen;
    },
    get recording() {
      return running != null;
    },
  };
}
