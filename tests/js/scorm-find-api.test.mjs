// Finding an LMS's API (static/js/lms/find-api.js): parents, the opener, windows of another origin, the bound.
import assert from "node:assert/strict";
import { test } from "node:test";

import { findAPI, inFrame, lookForAPI, MAX_TRIES, METHODS, RETRY_MS } from "../../static/js/lms/find-api.js";

const api = () => Object.fromEntries(METHODS.map((m) => [m, () => ""]));

/** A window: its parent (itself at the top), opener, API and document; `foreign` throws on every read. */
function win({ parent = null, opener = null, API_1484_11, foreign = false } = {}) {
  const w = { opener, API_1484_11, document: {} };
  const seen = !foreign ? w : new Proxy(w, { get(target, key) {
    if (key === "top" || key === "parent") return target[key]; // what a window of another origin lets through
    throw new DOMException("Blocked a frame with origin", "SecurityError");
  } });
  w.parent = parent || seen;
  w.top = parent ? parent.top : seen;
  return seen;
}

test("the top window with no opener: nothing, at once", () => {
  const top = win();
  assert.equal(findAPI(top), null);
  assert.equal(lookForAPI(top), null);
  assert.equal(inFrame(top), false);
});

test("the API on a parent or a grandparent, and its depth", () => {
  const lms = win({ API_1484_11: api() });
  const middle = win({ parent: lms });
  const page = win({ parent: middle });
  assert.deepEqual({ ...findAPI(page), api: undefined }, { api: undefined, depth: 1, where: "parent" });
  assert.equal(findAPI(page).api, lms.API_1484_11);
  assert.equal(inFrame(page), true);
});

test("an object without the eight functions is no API", () => {
  const { Commit, ...partial } = api();
  assert.equal(findAPI(win({ parent: win({ API_1484_11: partial }) })), null);
  assert.equal(findAPI(win({ parent: win({ API_1484_11: "yes" }) })), null);
});

test("a window of another origin is passed over (its API cannot be read, its parent can); then the opener's chain", () => {
  const foreign = win({ foreign: true, API_1484_11: api() });
  assert.equal(findAPI(win({ parent: foreign })), null);
  const lms = win({ API_1484_11: api() });
  assert.deepEqual(findAPI(win({ parent: win({ parent: lms, foreign: true }) })).depth, 1);
  const opener = win({ parent: win({ API_1484_11: api() }) });
  assert.equal(findAPI(win({ parent: foreign, opener })).where, "opener");
  assert.equal(lookForAPI(win({ parent: foreign })), null, "no waiting in a frame of another origin");
});

test(`the walk is bounded (${MAX_TRIES} steps)`, () => {
  let w = win({ API_1484_11: api() });
  for (let i = 0; i < MAX_TRIES + 5; i += 1) w = win({ parent: w });
  assert.equal(findAPI(w), null);
});

test("in a frame of its own origin, the page looks again: an LMS may set its API after the frame loaded", async () => {
  const parent = win();
  const page = win({ parent });
  const waits = [];
  const found = lookForAPI(page, async (ms) => {
    waits.push(ms);
    if (waits.length === 2) parent.API_1484_11 = api();
  });
  assert.equal((await found).where, "parent");
  assert.deepEqual(waits, RETRY_MS.slice(0, 2));
  assert.equal(await lookForAPI(win({ parent: win() }), async () => {}), null);
});
