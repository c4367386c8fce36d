/**
 * The MapLibre demo page: `?store=URL` on a blank style (no tiles, works offline), with a time
 * slider, product and band selects, opacity, the viewer's legend (with the stretch controls of a
 * single band), MapLibre's scale bar, a cursor readout from the frame on the map (no request per
 * mouse move) and a click readout. `&t=`, `&product=`, `&band=` set the start.
 * `window.__chronozarrMap` holds { map, layer } for tests.
 * @module
 */
import * as maplibregl from 'maplibre-gl';
import { idLookup } from '../lib/dom.js';
import { createLegend } from '../lib/legend.js';
import { legendFor } from '../lib/legend-spec.js';
import { ChronozarrLayer } from './layer.js';

const $ = idLookup(document, '');
const params = new URLSearchParams(location.search);
const store = params.get('store');

/** A style with nothing but a background: the page needs no tile server. */
/** @type {import('maplibre-gl').StyleSpecification} */
const BLANK_STYLE = { version: 8, sources: {}, layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#2a2f3a' } }] };

const map = new maplibregl.Map({ container: 'map', style: BLANK_STYLE, center: [0, 0], zoom: 1, attributionControl: false });
map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'top-right');
map.addControl(new maplibregl.ScaleControl({ unit: 'metric', maxWidth: 120 }), 'bottom-left');

/** @param {string} text @param {boolean} [error] */
function status(text, error = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', error);
}

if (!store) {
  status('No store: open this page with ?store=URL of a chronozarr store (the directory holding zarr.json).', true);
} else {
  const t = Number(params.get('t') ?? 0);
  const layer = new ChronozarrLayer({ url: store, t, product: params.get('product') ?? undefined, band: params.get('band') ?? 0, prefetch: true });
  Object.assign(window, { __chronozarrMap: { map, layer } });
  layer.on('error', (event) => {
    console.error(event.error);
    status(String(event.error?.message ?? event.error), true);
  });
  layer.on('loading', () => status('Loading…'));
  layer.on('ready', () => {
    status('');
    showLegend();
  });
  const legend = createLegend($('legend'), { onRange: (r) => layer.setRange(r), onAuto: () => layer.setRange(null) });
  /** The legend of what the layer draws now (its automatic stretch follows the view). */
  function showLegend() {
    const look = layer.look;
    if (look) legend.update(legendFor(layer.store, look, { product: layer.product ?? '', band: Number(layer.band) }));
  }
  map.on('idle', showLegend);
  map.on('mousemove', (event) => {
    const v = layer.valueOnScreen(event.lngLat);
    const { lng, lat } = event.lngLat;
    const where = `${Math.abs(lat).toFixed(5)}° ${lat < 0 ? 'S' : 'N'} ${Math.abs(lng).toFixed(5)}° ${lng < 0 ? 'W' : 'E'}`;
    $('cursor').textContent = v ? `${where}  row ${v.y}, col ${v.x}  ${v.time.slice(0, 10)}${v.lod ? ` level ${v.lod}` : ''}\n${v.bands.map((b) => `${b.name} ${b.value == null ? '–' : Number(b.value.toPrecision(6))} (${b.stored})`).join('  ')}` : where;
    Object.assign($('cursor').dataset, v ? { row: String(v.y), col: String(v.x), stored: v.bands.map((b) => b.stored).join(',') } : { row: '', col: '', stored: '' });
  });
  layer.on('open', () => {
    const bounds = layer.bounds;
    if (bounds) map.fitBounds(bounds, { padding: 40, duration: 0 });
    const slider = $('time', HTMLInputElement);
    slider.max = String(layer.times.length - 1);
    slider.value = String(layer.t);
    slider.disabled = false;
    const showDate = () => ($('date').textContent = `${layer.times[layer.t].slice(0, 10)} (${layer.t + 1}/${layer.times.length})`);
    showDate();
    slider.addEventListener('input', () => {
      layer.setTime(Number(slider.value));
      showDate();
    });
    const product = $('product', HTMLSelectElement);
    for (const p of layer.products) {
      const option = new Option(p.name + (p.available ? '' : ' (unavailable)'), p.id);
      option.disabled = !p.available;
      product.append(option);
    }
    product.value = layer.product ?? '';
    product.disabled = false;
    product.addEventListener('change', () => {
      layer.setProduct(product.value);
      showLegend();
    });
    const band = $('band', HTMLSelectElement);
    layer.bandNames.forEach((name, i) => band.append(new Option(name, String(i))));
    band.value = String(layer.band);
    band.disabled = false;
    band.addEventListener('change', () => {
      layer.setBand(Number(band.value));
      showLegend();
    });
  });
  layer.opened.catch((err) => status(`Could not open ${store}: ${err.message}`, true));
  const opacity = $('opacity', HTMLInputElement);
  opacity.addEventListener('input', () => layer.setOpacity(Number(opacity.value)));
  map.on('click', async (event) => {
    const v = await layer.getValueAt(event.lngLat).catch((err) => ({ error: err }));
    if (!v) $('readout').textContent = 'outside the store';
    else if ('error' in v) $('readout').textContent = String(v.error.message);
    else {
      const lines = v.bands.map((b) => `${b.name.padEnd(6)} ${b.value == null ? '–' : Number(b.value.toPrecision(6))}  (stored ${b.stored})`);
      $('readout').textContent = [`pixel ${v.x}, ${v.y}  ${v.time.slice(0, 10)}${v.valid ? '' : '  invalid'}`, ...lines].join('\n');
    }
  });
  map.on('load', () => map.addLayer(layer));
}
