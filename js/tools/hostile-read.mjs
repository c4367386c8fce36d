// @ts-check
// (Run by test/untrusted.test.js, not a test itself: node --test takes every file under test/.)
// One read of a store in a process of its own, for tests that bound its time and memory:
// node hostile-read.mjs STORE T PHASE prints one JSON line: how the read ended and how much the
// process's peak resident memory grew during it (bytes).
import { openStore } from '../src/index.js';

const [location, t, phase] = process.argv.slice(2);
const peak = () => process.resourceUsage().maxRSS * 1024;
let before = peak();
let store = null;
const report = (/** @type {Record<string, unknown>} */ fields) => process.stdout.write(`${JSON.stringify({ ...fields, growth: peak() - before })}\n`);
try {
  if (phase !== 'open') {
    store = await openStore(location, { workers: 0 });
    before = peak();
  }
  store ??= await openStore(location, { workers: 0 });
  await store.getCell(0, 0, 0, Number(t));
  report({ outcome: 'values', during: 'read' });
} catch (err) {
  report({ outcome: 'error', name: err instanceof Error ? err.name : undefined, message: err instanceof Error ? err.message : String(err), during: store ? 'read' : 'open' });
} finally {
  store?.close();
}
