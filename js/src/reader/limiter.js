/**
 * Which request goes on the wire next. Every request holds a ticket whose rank says what it is
 * for: the store's metadata, a coarse picture of a view that shows nothing yet, the chunks of the
 * frame on screen, the timesteps next to it, or anything else. The best rank goes first, and:
 * - a frame's chunks wait while a coarse picture is still loading (it is small, and it is what a
 *   person sees first on a slow link);
 * - read-ahead (`ahead`, `background`) waits until no metadata, picture or frame request is queued
 *   or in flight, nor a frame-rank read between its dependent requests (`hold`), and then holds at most a few connections (4 for the timesteps next to the one on
 *   screen, 2 for the rest), so that the next frame's requests never queue behind it (a browser
 *   gives a host 6 connections over HTTP/1.1).
 * A ticket's rank can rise while it waits (a frame joins a read-ahead of the same chunk).
 * @module
 */
import { abortError } from './errors.js';

/** Ranks, best first. */
export const RANKS = Object.freeze({ metadata: 0, picture: 1, frame: 2, ahead: 3, background: 4 });

/** @typedef {keyof typeof RANKS} Priority what a request is for */

/**
 * A request's place in line: its own rank, improved by every ticket that joined the same work.
 * @typedef {{ readonly rank: number, join: (other: Ticket) => void }} Ticket
 */

/** @param {number} own @returns {Ticket} */
export function ticket(own) {
  /** @type {Ticket[]} */
  const joined = [];
  let visiting = false;
  /** @type {Ticket} */
  const self = {
    get rank() {
      if (visiting) return own; // tickets that joined each other
      visiting = true;
      let best = own;
      for (const other of joined) best = Math.min(best, other.rank);
      visiting = false;
      return best;
    },
    join(other) {
      if (other !== self && !joined.includes(other)) joined.push(other);
    },
  };
  return self;
}

/** The ticket of a request for what `priority` names; a RangeError for any other name. @param {string} priority */
export function ticketFor(priority) {
  if (!Object.hasOwn(RANKS, priority)) throw new RangeError(`unknown priority ${JSON.stringify(priority)}; one of ${Object.keys(RANKS).join(', ')}`);
  return ticket(RANKS[/** @type {Priority} */ (priority)]);
}

/** The ticket of metadata reads, which go first. */
export const METADATA = ticket(RANKS.metadata);

/** A read the frame on screen (or anything better) waits for. @param {Ticket} t */
export const isForeground = (t) => t.rank <= RANKS.frame;

/** A decode that goes before the reader's background ones: anything up to the next frame's. @param {Ticket} t */
export const decodesFirst = (t) => t.rank <= RANKS.ahead;

/** A request waiting for a slot. @typedef {{ ticket: Ticket, resolve: (rank: number) => void, cleanup: () => void }} Waiter */

/**
 * @param {number} max requests in flight at once
 * @param {{ ahead?: number, background?: number }} [readAhead] read-ahead requests in flight at
 *   once: of any kind while an `ahead` one waits (4), while only `background` ones do (2)
 */
export function createLimiter(max, { ahead = 4, background = 2 } = {}) {
  /** @type {Waiter[]} */
  const waiting = [];
  /** Requests in flight by the rank they went out with. @type {number[]} */
  const active = [0, 0, 0, 0, 0];
  const total = () => active.reduce((a, b) => a + b, 0);
  /** Foreground reads between two dependent requests (hold): read-ahead waits for them too. */
  let holding = 0;

  function next() {
    while (waiting.length && total() < max) {
      let best = 0;
      const ranks = waiting.map((w) => w.ticket.rank);
      for (let i = 1; i < waiting.length; i++) if (ranks[i] < ranks[best]) best = i; // first come first at equal rank
      const rank = Math.min(ranks[best], RANKS.background);
      if (!admissible(rank, active, holding, { ahead, background })) return; // the rules only get stricter down the ranks
      const [waiter] = waiting.splice(best, 1);
      waiter.cleanup();
      active[rank]++;
      waiter.resolve(rank);
    }
  }

  /**
   * Wait for a slot; the returned function releases it.
   * @param {Ticket} t
   * @param {AbortSignal} [signal]
   * @returns {Promise<() => void>}
   */
  async function acquire(t, signal) {
    if (signal?.aborted) throw abortError(signal);
    const rank = await wait(waiting, t, signal, next);
    return once(() => {
      active[rank]--;
      next();
    });
  }

  /**
   * A foreground read made of dependent requests (a shard index, then the range it points to)
   * keeps read-ahead from taking the link between them; the returned function lets it go. A
   * read-ahead ticket holds nothing.
   * @param {Ticket} t
   * @returns {() => void}
   */
  function hold(t) {
    if (!isForeground(t)) return () => {};
    holding++;
    return once(() => {
      holding--;
      next();
    });
  }

  return {
    acquire,
    hold,
    /** A waiting ticket's rank rose: it may go now. */
    reorder: next,
    get active() {
      return total();
    },
    get queued() {
      return waiting.length;
    },
  };
}

/**
 * Whether a request of `rank`, the best waiting, may go now: a frame's once no picture is loading,
 * read-ahead once nothing better is in flight or held, and within its few connections.
 * @param {number} rank @param {number[]} active in flight by rank @param {number} holding foreground reads between requests
 * @param {{ ahead: number, background: number }} readAhead
 */
function admissible(rank, active, holding, { ahead, background }) {
  if (rank === RANKS.frame) return active[RANKS.picture] === 0;
  if (rank < RANKS.ahead) return true;
  const foreground = active[RANKS.metadata] + active[RANKS.picture] + active[RANKS.frame] + holding;
  return foreground === 0 && active[RANKS.ahead] + active[RANKS.background] < (rank === RANKS.ahead ? ahead : background);
}

/**
 * Queue `t` until `next` lets it go; resolves with the rank it goes out with. An abort takes it
 * out of the line, and what it held back may go.
 * @param {Waiter[]} waiting @param {Ticket} t @param {AbortSignal | undefined} signal @param {() => void} next
 * @returns {Promise<number>}
 */
function wait(waiting, t, signal, next) {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      const i = waiting.indexOf(waiter);
      if (i >= 0) waiting.splice(i, 1);
      reject(abortError(signal));
      next(); // what it held back may go now
    };
    /** @type {Waiter} */
    const waiter = { ticket: t, resolve, cleanup: () => signal?.removeEventListener('abort', onAbort) };
    signal?.addEventListener('abort', onAbort, { once: true });
    waiting.push(waiter);
    next();
  });
}

/** A release that counts once, however often it is called. @param {() => void} release */
function once(release) {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release();
  };
}
