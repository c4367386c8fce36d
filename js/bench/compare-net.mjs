// @ts-check
// The network side of the browser comparison: a fresh context throttled to a profile by CDP
// network emulation, every request it makes logged (URL, Range, bytes, how it ended), and the
// fetch-only floor: the same finished requests made again at once on a blank page of the same
// origin, bodies read, nothing decoded or drawn.
import { VIEWPORT } from './viewer-harness.mjs';

/**
 * A network profile: download Mbit/s (0: unthrottled), round trip ms, upload Mbit/s when it
 * differs from the download's, and a CPU slowdown factor (CDP Emulation.setCPUThrottlingRate,
 * which slows the page's own threads; its workers run at full speed).
 * @typedef {{ name: string, mbit: number, rtt: number, upMbit?: number, cpu?: number }} Profile
 */

/** @type {Profile[]} */
export const PROFILES = [
  { name: 'unthrottled', mbit: 0, rtt: 0 },
  { name: '50 Mbit/s, 40 ms', mbit: 50, rtt: 40 },
  { name: '10 Mbit/s, 100 ms', mbit: 10, rtt: 100 },
  // Lighthouse's mobile throttling, where people open shared links: 150 ms, 1.6 Mbit/s down,
  // 750 kbit/s up, the CPU slowed 4x.
  { name: 'phone: 1.6 Mbit/s, 150 ms, CPU 4x slower', mbit: 1.6, upMbit: 0.75, rtt: 150, cpu: 4 },
];

/**
 * @typedef {{ url: string, range: string | null, bytes: number, done: boolean, canceled: boolean, sentAt: number }} Logged sentAt: epoch ms
 * @typedef {{ log: Logged[], pending: Set<string> }} Net
 * @typedef {{ index: number, inFlight: Logged[] }} Mark
 */

/**
 * A page in a fresh context (empty HTTP cache), throttled to `profile`, its requests logged.
 * @param {import('playwright-core').Browser} browser @param {Profile} profile
 */
export async function newTab(browser, profile) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  if (profile.mbit) {
    const bps = (/** @type {number} */ mbit) => (mbit * 1e6) / 8;
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: profile.rtt, downloadThroughput: bps(profile.mbit), uploadThroughput: bps(profile.upMbit ?? profile.mbit) });
  }
  if (profile.cpu) await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpu });
  /** @type {Net} */
  const net = { log: [], pending: new Set() };
  /** @type {Map<string, Logged>} */
  const byId = new Map();
  cdp.on('Network.requestWillBeSent', (e) => {
    if (e.request.url.startsWith('data:')) return;
    const entry = { url: e.request.url, range: e.request.headers.Range ?? e.request.headers.range ?? null, bytes: 0, done: false, canceled: false, sentAt: e.wallTime * 1000 };
    byId.set(e.requestId, entry); // a redirect reuses the id: the new hop replaces the old
    net.log.push(entry);
    // Data only: a worker's script is never reported finished to the page's session.
    if (!/\.(m?js|css|html|wasm)(\?|$)/.test(new URL(e.request.url).pathname)) net.pending.add(e.requestId);
  });
  cdp.on('Network.loadingFinished', (e) => {
    const entry = byId.get(e.requestId);
    if (!entry) return;
    Object.assign(entry, { bytes: e.encodedDataLength, done: true });
    net.pending.delete(e.requestId);
  });
  cdp.on('Network.loadingFailed', (e) => {
    const entry = byId.get(e.requestId);
    if (!entry) return;
    entry.canceled = Boolean(e.canceled);
    net.pending.delete(e.requestId);
  });
  return { context, page, net };
}

/** Wait until no request has been in flight for `quietMs` (at most `timeout`). @param {Net} net */
export async function idle(net, quietMs = 500, timeout = 20_000) {
  const end = Date.now() + timeout;
  let quietSince = Date.now();
  while (Date.now() < end) {
    if (net.pending.size > 0) quietSince = Date.now();
    else if (Date.now() - quietSince >= quietMs) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Where an operation starts in the log: its index, and the requests still in flight then. @param {Net} net @returns {Mark} */
export function mark(net) {
  return { index: net.log.length, inFlight: net.log.filter((e) => !e.done && !e.canceled) };
}

/**
 * The requests an operation waited on: those in flight when it started (a read joins a prefetch
 * already on the wire) and those sent from its start up to `until` (a later mark) or now.
 * @param {Net} net @param {Mark} from @param {Mark | null} [until]
 */
export function since(net, from, until = null) {
  return [...from.inFlight, ...net.log.slice(from.index, until ? until.index : net.log.length)];
}

/** Requests, bytes and aborted requests of a slice of the log. @param {Logged[]} entries */
export function counts(entries) {
  const done = entries.filter((e) => e.done);
  return { requests: done.length, bytes: done.reduce((s, e) => s + e.bytes, 0), aborted: entries.filter((e) => e.canceled).length };
}

/**
 * The fetch-only floor of each list of requests, in one fresh context throttled alike: ms to
 * make the list's finished requests again at once and read their bodies (0 for an empty list).
 * @param {import('playwright-core').Browser} browser @param {Profile} profile @param {string} base @param {Logged[][]} lists
 */
export async function replay(browser, profile, base, lists) {
  const { context, page } = await newTab(browser, profile);
  try {
    await page.goto(`${base}/bench/pages/blank.html`);
    /** @type {number[]} */
    const out = [];
    for (const list of lists) {
      const requests = list.filter((e) => e.done).map(({ url, range }) => ({ url, range: range ?? undefined }));
      out.push(requests.length ? await page.evaluate((r) => window.replay(r), requests) : 0);
    }
    return out;
  } finally {
    await context.close();
  }
}
