/**
 * The timeline: one tick per timestep placed by its date, so missing months show as gaps (shaded
 * where a step is more than 1.5 times the usual spacing), a handle on the asked step, year labels.
 * Click or drag asks the clock (clock.js) for the nearest date, and the handle follows the clock; it
 * is an ARIA slider driven by the arrow keys too.
 * @module
 */

/**
 * @param {HTMLElement} host
 * @param {{ times: readonly string[], clock: import('./clock.js').Clock, label: (t: number) => string }} o
 */
export function createTimeline(host, { times, clock, label }) {
  const ms = times.map((s) => Date.parse(s));
  const t0 = ms[0];
  const span = Math.max(1, ms[ms.length - 1] - t0);
  const pos = ms.map((m) => (times.length === 1 ? 0.5 : (m - t0) / span));
  host.setAttribute('role', 'slider');
  host.setAttribute('tabindex', '0');
  host.setAttribute('aria-label', 'Time');
  host.setAttribute('aria-valuemin', '0');
  host.setAttribute('aria-valuemax', String(times.length - 1));
  const track = document.createElement('div');
  track.className = 'tl-track';
  const steps = ms.slice(1).map((m, i) => m - ms[i]).sort((a, b) => a - b);
  const usual = steps.length ? steps[Math.floor(steps.length / 2)] : 0;
  const parts = [];
  for (let i = 1; i < ms.length; i++) {
    if (usual > 0 && ms[i] - ms[i - 1] > 1.5 * usual) {
      parts.push(`<span class="tl-gap" style="left:${pct(pos[i - 1])};width:${pct(pos[i] - pos[i - 1])}" title="no data between ${times[i - 1].slice(0, 10)} and ${times[i].slice(0, 10)}"></span>`);
    }
  }
  const dense = times.length > 400;
  if (!dense) for (let i = 0; i < ms.length; i++) parts.push(`<span class="tl-tick" style="left:${pct(pos[i])}"></span>`);
  const y0 = new Date(t0).getUTCFullYear();
  const y1 = new Date(ms[ms.length - 1]).getUTCFullYear();
  const every = Math.max(1, Math.ceil((y1 - y0 + 1) / 8));
  for (let y = y0; y <= y1; y += every) {
    const m = Date.UTC(y, 0, 1);
    if (m >= t0 && m <= ms[ms.length - 1]) parts.push(`<span class="tl-year" style="left:${pct((m - t0) / span)}">${y}</span>`);
  }
  track.innerHTML = parts.join('');
  const handle = document.createElement('span');
  handle.className = 'tl-handle';
  track.append(handle);
  host.replaceChildren(track);

  /** The timestep nearest a pointer's x. @param {number} clientX */
  const nearest = (clientX) => {
    const box = track.getBoundingClientRect();
    const f = (clientX - box.left) / Math.max(1, box.width);
    let best = 0;
    for (let i = 1; i < pos.length; i++) if (Math.abs(pos[i] - f) < Math.abs(pos[best] - f)) best = i;
    return best;
  };
  let dragging = false;
  host.addEventListener('pointerdown', (e) => {
    dragging = true;
    host.setPointerCapture(e.pointerId);
    clock.set(nearest(e.clientX));
  });
  host.addEventListener('pointermove', (e) => dragging && clock.set(nearest(e.clientX)));
  host.addEventListener('pointerup', () => (dragging = false));
  host.addEventListener('pointercancel', () => (dragging = false));

  clock.on(({ t }) => {
    handle.style.left = pct(pos[t]);
    host.setAttribute('aria-valuenow', String(t));
    host.setAttribute('aria-valuetext', label(t));
  });
}

const pct = (/** @type {number} */ f) => `${(f * 100).toFixed(4)}%`;
