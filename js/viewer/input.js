/**
 * Pointer, wheel and touch input on the canvas: drag to pan, wheel and pinch to zoom about the
 * pointer, and a click (a press that did not move) to inspect.
 * @module
 */

/**
 * @param {HTMLCanvasElement} canvas
 * @param {object} o
 * @param {(dx: number, dy: number) => void} o.pan CSS pixels
 * @param {(factor: number, px: number, py: number) => void} o.zoom about a CSS point of the canvas
 * @param {(px: number, py: number, how: { shift: boolean }) => void} o.click
 */
export function attachInput(canvas, { pan, zoom, click }) {
  /** @type {Map<number, { x: number, y: number, x0: number, y0: number }>} */
  const pointers = new Map();
  let moved = false;
  let pinch = 0;

  /** @param {PointerEvent | WheelEvent} e */
  const local = (e) => {
    const box = canvas.getBoundingClientRect();
    return { x: e.clientX - box.left, y: e.clientY - box.top };
  };

  canvas.addEventListener('pointerdown', (e) => {
    canvas.setPointerCapture(e.pointerId);
    const p = local(e);
    pointers.set(e.pointerId, { ...p, x0: p.x, y0: p.y });
    if (pointers.size === 1) moved = false;
    if (pointers.size === 2) {
      moved = true;
      pinch = spread();
    }
  });

  canvas.addEventListener('pointermove', (e) => {
    const prev = pointers.get(e.pointerId);
    if (!prev) return;
    const p = local(e);
    if (pointers.size === 1) {
      if (Math.hypot(p.x - prev.x0, p.y - prev.y0) > 4) moved = true;
      if (moved) pan(p.x - prev.x, p.y - prev.y);
      pointers.set(e.pointerId, { ...prev, x: p.x, y: p.y });
    } else if (pointers.size === 2) {
      const before = centroid();
      pointers.set(e.pointerId, { ...prev, x: p.x, y: p.y });
      const after = centroid();
      const s = spread();
      pan(after.x - before.x, after.y - before.y);
      if (pinch > 0 && s > 0) zoom(s / pinch, after.x, after.y);
      pinch = s;
    }
  });

  /** @param {PointerEvent} e */
  const end = (e) => {
    const prev = pointers.get(e.pointerId);
    if (!prev) return;
    pointers.delete(e.pointerId);
    if (e.type === 'pointerup' && pointers.size === 0 && !moved) click(prev.x0, prev.y0, { shift: e.shiftKey });
    if (pointers.size < 2) pinch = 0;
  };
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointercancel', end);

  canvas.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      const p = local(e);
      const lines = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      zoom(Math.exp((-e.deltaY * lines) / 500), p.x, p.y);
    },
    { passive: false },
  );

  function centroid() {
    const ps = [...pointers.values()];
    return { x: (ps[0].x + ps[1].x) / 2, y: (ps[0].y + ps[1].y) / 2 };
  }
  function spread() {
    const ps = [...pointers.values()];
    return ps.length < 2 ? 0 : Math.hypot(ps[0].x - ps[1].x, ps[0].y - ps[1].y);
  }
}
