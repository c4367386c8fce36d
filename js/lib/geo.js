/**
 * Store coordinates to WGS84 and back for the CRSs the viewer can place: WGS84 UTM zones
 * (EPSG:326zz north, 327zz south), EPSG:3857 and EPSG:4326. Transverse Mercator uses the
 * classic series in the eccentricity (Snyder, Map Projections, USGS PP 1395, 8-5 to 8-10, 8-17 to
 * 8-25), accurate to well under a millimetre inside a zone.
 * @module
 */

const A = 6378137;
const F = 1 / 298.257223563;
const E2 = F * (2 - F);
const EP2 = E2 / (1 - E2);
const K0 = 0.9996;
const DEG = Math.PI / 180;

/**
 * Ground metres per degree of longitude along the parallel at `lat` on the WGS84 ellipsoid.
 * @param {number} lat degrees
 */
export function metresPerDegreeLon(lat) {
  const phi = lat * DEG;
  return (A * Math.cos(phi) * DEG) / Math.sqrt(1 - E2 * Math.sin(phi) ** 2);
}

/**
 * @param {string | null} crs
 * @returns {{ kind: 'utm', zone: number, south: boolean } | { kind: '3857' } | { kind: '4326' } | null}
 */
export function parseCrs(crs) {
  const m = /^EPSG:(\d+)$/i.exec(crs ?? '');
  if (!m) return null;
  const code = Number(m[1]);
  if (code === 3857) return { kind: '3857' };
  if (code === 4326) return { kind: '4326' };
  if (code >= 32601 && code <= 32660) return { kind: 'utm', zone: code - 32600, south: false };
  if (code >= 32701 && code <= 32760) return { kind: 'utm', zone: code - 32700, south: true };
  return null;
}

/**
 * @param {string | null} crs
 * @param {number} x
 * @param {number} y
 * @returns {{ lon: number, lat: number } | null}
 */
export function toLonLat(crs, x, y) {
  const p = parseCrs(crs);
  if (!p) return null;
  if (p.kind === '4326') return { lon: x, lat: y };
  if (p.kind === '3857') return { lon: (x / A) / DEG, lat: (2 * Math.atan(Math.exp(y / A)) - Math.PI / 2) / DEG };
  return utmInverse(x, y, p.zone, p.south);
}

/**
 * @param {string | null} crs
 * @param {number} lon
 * @param {number} lat
 * @returns {{ x: number, y: number } | null}
 */
export function fromLonLat(crs, lon, lat) {
  const p = parseCrs(crs);
  if (!p) return null;
  if (p.kind === '4326') return { x: lon, y: lat };
  if (p.kind === '3857') return { x: A * lon * DEG, y: A * Math.log(Math.tan(Math.PI / 4 + (lat * DEG) / 2)) };
  return utmForward(lon, lat, p.zone, p.south);
}

/** Distance along the meridian from the equator to latitude phi (radians), in metres. @param {number} phi */
function meridianArc(phi) {
  const e4 = E2 * E2;
  const e6 = e4 * E2;
  return A * ((1 - E2 / 4 - (3 * e4) / 64 - (5 * e6) / 256) * phi
    - ((3 * E2) / 8 + (3 * e4) / 32 + (45 * e6) / 1024) * Math.sin(2 * phi)
    + ((15 * e4) / 256 + (45 * e6) / 1024) * Math.sin(4 * phi)
    - ((35 * e6) / 3072) * Math.sin(6 * phi));
}

/** @param {number} lon @param {number} lat @param {number} zone @param {boolean} south @returns {{ x: number, y: number }} */
function utmForward(lon, lat, zone, south) {
  const phi = lat * DEG;
  const lam0 = ((zone - 1) * 6 - 180 + 3) * DEG;
  const sin = Math.sin(phi);
  const cos = Math.cos(phi);
  const tan = Math.tan(phi);
  const n = A / Math.sqrt(1 - E2 * sin * sin);
  const t = tan * tan;
  const c = EP2 * cos * cos;
  const a = cos * (lon * DEG - lam0);
  const m = meridianArc(phi);
  const x = K0 * n * (a + ((1 - t + c) * a ** 3) / 6 + ((5 - 18 * t + t * t + 72 * c - 58 * EP2) * a ** 5) / 120) + 500000;
  let y = K0 * (m + n * tan * ((a * a) / 2 + ((5 - t + 9 * c + 4 * c * c) * a ** 4) / 24
    + ((61 - 58 * t + t * t + 600 * c - 330 * EP2) * a ** 6) / 720));
  if (south) y += 10000000;
  return { x, y };
}

/** @param {number} x @param {number} y @param {number} zone @param {boolean} south @returns {{ lon: number, lat: number }} */
function utmInverse(x, y, zone, south) {
  const lam0 = ((zone - 1) * 6 - 180 + 3) * DEG;
  const m = (south ? y - 10000000 : y) / K0;
  const mu = m / (A * (1 - E2 / 4 - (3 * E2 * E2) / 64 - (5 * E2 ** 3) / 256));
  const e1 = (1 - Math.sqrt(1 - E2)) / (1 + Math.sqrt(1 - E2));
  const phi1 = mu + ((3 * e1) / 2 - (27 * e1 ** 3) / 32) * Math.sin(2 * mu)
    + ((21 * e1 * e1) / 16 - (55 * e1 ** 4) / 32) * Math.sin(4 * mu)
    + ((151 * e1 ** 3) / 96) * Math.sin(6 * mu) + ((1097 * e1 ** 4) / 512) * Math.sin(8 * mu);
  const sin = Math.sin(phi1);
  const cos = Math.cos(phi1);
  const c1 = EP2 * cos * cos;
  const t1 = Math.tan(phi1) ** 2;
  const n1 = A / Math.sqrt(1 - E2 * sin * sin);
  const r1 = (A * (1 - E2)) / (1 - E2 * sin * sin) ** 1.5;
  const d = (x - 500000) / (n1 * K0);
  const lat = phi1 - ((n1 * Math.tan(phi1)) / r1) * ((d * d) / 2
    - ((5 + 3 * t1 + 10 * c1 - 4 * c1 * c1 - 9 * EP2) * d ** 4) / 24
    + ((61 + 90 * t1 + 298 * c1 + 45 * t1 * t1 - 252 * EP2 - 3 * c1 * c1) * d ** 6) / 720);
  const lon = lam0 + (d - ((1 + 2 * t1 + c1) * d ** 3) / 6
    + ((5 - 2 * c1 + 28 * t1 - 3 * c1 * c1 + 8 * EP2 + 24 * t1 * t1) * d ** 5) / 120) / cos;
  return { lon: lon / DEG, lat: lat / DEG };
}
