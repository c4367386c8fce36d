// @ts-check
// lib/geo.js places points as pyproj does (test/viewer_expected.py): forward within a millimetre,
// inverse within 1e-8 degrees (about a millimetre), for UTM zones north and south, EPSG:3857 and 4326.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromLonLat, metresPerDegreeLon, parseCrs, toLonLat } from '../lib/geo.js';
import { viewerExpected } from './helpers.js';

const { places, degrees } = viewerExpected();

test('fromLonLat puts every point where pyproj puts it', () => {
  assert.ok(places.length > 20);
  for (const p of places) {
    const got = fromLonLat(p.crs, p.lon, p.lat);
    assert.ok(got, p.crs);
    assert.ok(Math.abs(got.x - p.x) < 1e-3 && Math.abs(got.y - p.y) < 1e-3, `${p.crs} ${p.lon},${p.lat}: ${got.x},${got.y} vs ${p.x},${p.y}`);
  }
});

test('toLonLat takes pyproj\'s coordinates back to the point', () => {
  for (const p of places) {
    const got = toLonLat(p.crs, p.x, p.y);
    assert.ok(got, p.crs);
    assert.ok(Math.abs(got.lon - p.lon) < 1e-8 && Math.abs(got.lat - p.lat) < 1e-8, `${p.crs} ${p.x},${p.y}: ${got.lon},${got.lat} vs ${p.lon},${p.lat}`);
  }
});

test('a CRS it cannot place gives null, not a wrong place', () => {
  for (const crs of [null, '', 'EPSG:2056', 'EPSG:32600', 'EPSG:32661', 'EPSG:32761', 'PROJCS["x"]']) {
    assert.equal(parseCrs(crs), null, String(crs));
    assert.equal(toLonLat(crs, 1, 2), null);
    assert.equal(fromLonLat(crs, 1, 2), null);
  }
  assert.deepEqual(parseCrs('epsg:32719'), { kind: 'utm', zone: 19, south: true });
});

test('metres per degree of longitude are pyproj\'s geodesic length of a degree along the parallel', () => {
  for (const { lat, metres } of degrees) assert.ok(Math.abs(metresPerDegreeLon(lat) - metres) < 1e-3, `${lat}: ${metresPerDegreeLon(lat)} vs ${metres}`);
});
