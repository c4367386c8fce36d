// @ts-check
// The map both MapLibre pages draw on: a black background and the view the query names
// (?lon=&lat=&zoom=), with no fading, so the two layers are measured on the same map.
import { Map as MapLibreMap } from 'maplibre-gl';

/** @param {URLSearchParams} q */
export function benchMap(q) {
  return new MapLibreMap({
    container: 'map',
    style: { version: 8, sources: {}, layers: [{ id: 'bg', type: 'background', paint: { 'background-color': '#000' } }] },
    center: [Number(q.get('lon')), Number(q.get('lat'))],
    zoom: Number(q.get('zoom')),
    attributionControl: false,
    fadeDuration: 0,
  });
}
