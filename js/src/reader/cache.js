/**
 * One least-recently-used cache holding two tiers under one byte budget: decoded chunks (what
 * getCell returns) and compressed chunk bytes (so an evicted decode costs no request).
 * @module
 */

/** @typedef {'decoded' | 'compressed'} Tier */
/** @typedef {{ value: unknown, bytes: number, tier: Tier }} Entry */

/**
 * Values are of the type their key's tier holds (see context.js tierKey): callers that put one
 * kind under a prefix read that kind back.
 * @param {number} budget bytes for both tiers together
 * @param {number} [decodedBudget] bytes the decoded tier may hold of that (all of it by default)
 */
export function createCache(budget, decodedBudget = Infinity) {
  /** @type {Map<string, Entry>} */
  const items = new Map();
  const size = { decoded: 0, compressed: 0 };
  let evictions = 0;
  let hits = 0;
  let misses = 0;
  let peak = 0;

  /** @param {string} key */
  function get(key) {
    const item = items.get(key);
    if (!item) {
      misses++;
      return undefined;
    }
    hits++;
    items.delete(key);
    items.set(key, item);
    return item.value;
  }

  /** @param {string} key */
  const has = (key) => items.has(key);

  /** The value without counting a hit or refreshing its place. @param {string} key */
  const peek = (key) => items.get(key)?.value;

  /**
   * Swap the value of an entry in place (same size, same place in the eviction order).
   * @param {string} key
   * @param {unknown} value
   */
  function replace(key, value) {
    const item = items.get(key);
    if (item) item.value = value;
  }

  /**
   * @param {string} key
   * @param {unknown} value
   * @param {number} bytes
   * @param {'decoded' | 'compressed'} tier
   */
  function set(key, value, bytes, tier) {
    remove(key);
    const tierBudget = tier === 'decoded' ? Math.min(budget, decodedBudget) : budget;
    if (bytes > tierBudget) return false;
    evictions += makeRoom(items, size, { bytes, tier, budget, tierBudget }, remove);
    items.set(key, { value, bytes, tier });
    size[tier] += bytes;
    peak = Math.max(peak, size.decoded + size.compressed);
    return true;
  }

  /** @param {string} key */
  function remove(key) {
    const item = items.get(key);
    if (!item) return;
    items.delete(key);
    size[item.tier] -= item.bytes;
  }

  function clear() {
    items.clear();
    size.decoded = 0;
    size.compressed = 0;
  }

  const stats = () => ({ budget, decodedBudget, ...sizes(size), peakBytes: peak, entries: items.size, hits, misses, evictions });

  return { get, has, peek, replace, set, remove, clear, stats };
}

/**
 * Evict the least recently used entries until `bytes` more of `tier` fit both the whole budget
 * and the tier's; over the decoded ceiling alone, only decoded entries make room.
 * @param {Map<string, Entry>} items oldest first @param {Record<Tier, number>} size
 * @param {{ bytes: number, tier: Tier, budget: number, tierBudget: number }} room
 * @param {(key: string) => void} remove
 * @returns {number} entries evicted
 */
function makeRoom(items, size, { bytes, tier, budget, tierBudget }, remove) {
  let evicted = 0;
  for (const [oldKey, old] of items) {
    const overTotal = size.decoded + size.compressed + bytes > budget;
    const overTier = tier === 'decoded' && size.decoded + bytes > tierBudget;
    if (!overTotal && !overTier) break;
    if (!overTotal && old.tier !== 'decoded') continue;
    remove(oldKey);
    evicted++;
  }
  return evicted;
}

/** The bytes held, in all and by tier. @param {Record<Tier, number>} size */
const sizes = (size) => ({ bytes: size.decoded + size.compressed, decodedBytes: size.decoded, compressedBytes: size.compressed });
