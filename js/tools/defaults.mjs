// @ts-check
// `make fuzz`: how long a read from a server that never answers takes to settle with the JS
// reader's default timeout and retries (one JSON line to FUZZ_REPORT); exit 1 when it does not
// settle with our error within 60 seconds. Not a test file: it waits out the defaults (~45 s).
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../src/index.js';
import { DEFAULT_RETRY_DELAYS_MS, DEFAULT_TIMEOUT_MS } from '../src/reader/transport.js';
import { hostileServer, hostileStores } from '../test/helpers.js';

const { hosts } = hostileStores();
const server = await hostileServer(join(hosts, 'plain'), 'stall_before_headers');
const started = Date.now();
let outcome;
try {
  const store = await openStore(`${server.url}/s`, { workers: 0 });
  await store.getCell(0, 0, 0, 0);
  outcome = 'values';
} catch (err) {
  outcome = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
await server.stop();
const seconds = (Date.now() - started) / 1000;
const line = { language: 'js', target: 'default_timeouts_read', seconds: Math.round(seconds * 10) / 10, outcome: outcome.slice(0, 300), timeoutMs: DEFAULT_TIMEOUT_MS, retryDelaysMs: DEFAULT_RETRY_DELAYS_MS };
console.log(JSON.stringify(line));
if (process.env.FUZZ_REPORT) appendFileSync(process.env.FUZZ_REPORT, `${JSON.stringify(line)}\n`);
process.exit(outcome === 'values' || !/^(StoreError|FetchError)/.test(outcome) || seconds > 60 ? 1 : 0);
