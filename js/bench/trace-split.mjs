// @ts-check
// Where a traced window's time goes: busy ms per process and thread (merged top-level tasks),
// and the GPU process's main thread split into display compositing and WebGL commands. Used by
// first-frame.mjs (the opened -> complete window) and compare.mjs (the operations that miss).

/**
 * A Chrome trace event (the fields read here).
 * @typedef {{ ph: string, name: string, cat?: string, pid: number, tid: number, ts: number, dur?: number, args?: any }} TraceEvent
 * @typedef {{ opened: number, complete: number }} Marks
 */

/**
 * Busy ms per thread between the viewer's `opened` and `complete` marks (performance.now() of the
 * viewer page), or over the whole trace when `marks` is null.
 * @param {TraceEvent[] | { traceEvents: TraceEvent[] }} trace @param {Marks | null} marks
 */
export function split(trace, marks) {
  const events = Array.isArray(trace) ? trace : trace.traceEvents;
  /** @type {Map<string, string>} */
  const names = new Map();
  for (const e of events) {
    if (e.ph !== 'M') continue;
    if (e.name === 'process_name') names.set(`p${e.pid}`, e.args.name);
    if (e.name === 'thread_name') names.set(`t${e.pid}/${e.tid}`, e.args.name);
  }
  const label = (/** @type {TraceEvent} */ e) => `${names.get(`p${e.pid}`) ?? e.pid}: ${names.get(`t${e.pid}/${e.tid}`) ?? e.tid}`;
  const { from, to } = traceWindow(events, marks);
  /** @type {Map<string, number[][]>} */
  const spans = new Map();
  let displaySwap = 0;
  let webgl = 0;
  for (const e of events) {
    if (e.ph !== 'X' || !e.dur) continue;
    const a = Math.max(e.ts, from);
    const b = Math.min(e.ts + e.dur, to);
    if (b <= a) continue;
    if (String(e.cat).includes('toplevel')) {
      const key = label(e);
      const list = spans.get(key) ?? [];
      list.push([a, b]);
      spans.set(key, list);
    }
    if (names.get(`t${e.pid}/${e.tid}`) === 'CrGpuMain') {
      if (e.name === 'SkiaOutputSurfaceImplOnGpu::SwapBuffers') displaySwap += b - a;
      if (e.name === 'WebGL') webgl += b - a;
    }
  }
  /** @type {Record<string, number>} */
  const busyMs = {};
  for (const [key, list] of spans) {
    const ms = merged(list) / 1000;
    if (ms >= 1) busyMs[key] = Math.round(ms * 10) / 10;
  }
  return {
    ...(marks ? { openedToCompleteMs: Math.round(marks.complete - marks.opened), navigationToCompleteMs: Math.round(marks.complete) } : { windowMs: Math.round((to - from) / 1000) }),
    busyMs,
    gpuMain: { displaySwapMs: Math.round(displaySwap / 100) / 10, webglMs: Math.round(webgl / 100) / 10 },
  };
}

/** Total length of the union of [start, end] intervals. @param {number[][]} list */
function merged(list) {
  list.sort((x, y) => x[0] - y[0]);
  let total = 0;
  let [s, e] = list[0];
  for (const [a, b] of list.slice(1)) {
    if (a > e) {
      total += e - s;
      [s, e] = [a, b];
    } else e = Math.max(e, b);
  }
  return total + (e - s);
}

/** The trace window in trace microseconds: the marks of the last viewer navigation, or everything. @param {TraceEvent[]} events @param {Marks | null} marks */
function traceWindow(events, marks) {
  if (marks) {
    // performance.now() of the page counts from its navigationStart.
    const starts = events.filter((e) => e.name === 'navigationStart' && /\/viewer\//.test(e.args?.data?.documentLoaderURL ?? ''));
    const origin = starts[starts.length - 1].ts;
    return { from: origin + marks.opened * 1000, to: origin + marks.complete * 1000 };
  }
  let from = Infinity;
  let to = -Infinity;
  for (const e of events) {
    if (e.ph !== 'X' || !(e.ts > 0)) continue;
    from = Math.min(from, e.ts);
    to = Math.max(to, e.ts + (e.dur ?? 0));
  }
  return { from, to };
}

/** The busiest threads of a split, as one line for a report. @param {ReturnType<typeof split>} result */
export function summary(result, top = 5) {
  const busy = Object.entries(result.busyMs).sort((a, b) => b[1] - a[1]).slice(0, top);
  return `busy ms by thread: ${busy.map(([k, v]) => `${k} ${v}`).join('; ')}; GPU main: display swap ${result.gpuMain.displaySwapMs} ms, WebGL ${result.gpuMain.webglMs} ms`;
}
