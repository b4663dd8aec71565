// Running one case table through several transports: each case states who asks, what, and
// whether the rules allow it; every transport must reach the same verdict and leave the same data.
import assert from 'node:assert/strict';
import { assertFails, assertSucceeds } from './rules-unit-testing.mjs';

/** Rejects after `ms` instead of letting an SDK call that never settles hang the run. */
export function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The test library's context for a case's `as`: undefined (signed out), 'owner' or a user. */
export function contextFor(env, as) {
  if (as === undefined) return env.unauthenticatedContext();
  return env.authenticatedContext(as.uid, as.claims);
}

/** Runs `operation` and asserts the verdict; returns the value or the denial error. */
export async function expectVerdict(allow, operation, what) {
  const outcome = withTimeout(operation(), 15000, what);
  return allow ? assertSucceeds(outcome) : assertFails(outcome);
}

export { assert };

/** Values that arrive from a listener or a stream, awaited by predicate. */
export class Arrivals {
  #items = [];
  #wake;

  constructor(what) {
    this.what = what;
  }

  push(item) {
    this.#items.push(item);
    this.#wake?.();
  }

  get last() {
    return this.#items.at(-1);
  }

  /** The first arrival (past or future) that matches, within 10 s. */
  async first(predicate) {
    for (;;) {
      const found = this.#items.find(predicate);
      if (found !== undefined) return found;
      await withTimeout(new Promise((resolve) => { this.#wake = resolve; }), 10000, this.what);
    }
  }

  /** Waits until the latest arrival matches, within 10 s per arrival. */
  async until(predicate) {
    while (this.#items.length === 0 || !predicate(this.last)) {
      await withTimeout(new Promise((resolve) => { this.#wake = resolve; }), 10000, this.what);
    }
    return this.last;
  }
}
