// The page's broker (static/js/lab/client.js) on a device that says it has memory for two spare Pythons: the second
// boots once the first is ready (never two boots at once), and a second request right after the first finds a
// Python waiting. Stand-in workers as in lab-client.test.mjs.
import assert from "node:assert/strict";
import { after, test } from "node:test";

const LIMITS = { chars: 111_000, lines: 2_420, messages: 5_008, checkChars: 31_000, checkLines: 820, errorChars: 11_000,
  charts: 16 };
const DIAGNOSTICS = { ms: 9, pythonMs: 7, snapshot: false, snapshotError: "", isolated: false };

globalThis.document = { baseURI: "http://127.0.0.1:8000/lesson.html" };
Object.defineProperty(globalThis, "navigator", { value: { deviceMemory: 8 }, configurable: true });
globalThis.fetch = async () => new Response("// the worker's script");

class FakeWorker {
  static all = [];
  static autoReady = true;
  static booting = 0; // workers made and not yet ready
  static mostBooting = 0;

  constructor() {
    Object.assign(this, { terminated: false, port: null, isReady: false });
    FakeWorker.all.push(this);
  }

  postMessage(init) {
    this.init = init;
    this.port = init.port;
    FakeWorker.booting += 1;
    FakeWorker.mostBooting = Math.max(FakeWorker.mostBooting, FakeWorker.booting);
    this.port.onmessage = (event) => {
      const r = event.data;
      this.port.postMessage({ type: "result", id: r.id, ok: true, ms: 1, error: null, charts: [], truncated: false,
        stopped: false });
    };
    if (FakeWorker.autoReady) setTimeout(() => this.ready(), 5);
  }

  ready() {
    FakeWorker.booting -= 1;
    this.isReady = true;
    this.port.postMessage({ type: "ready", id: this.init.id, diagnostics: DIAGNOSTICS, limits: LIMITS });
  }

  terminate() {
    this.terminated = true;
    this.port.close();
  }
}
globalThis.Worker = FakeWorker;
after(() => {
  for (const worker of FakeWorker.all) if (worker.port) worker.port.close();
});

const { createPython } = await import("../../static/js/lab/client.js");
const RUNTIME = { worker: "static/h/js/lab-worker.js", workerIntegrity: "sha384-abc", indexURL: "runtime/p/",
  stdLibURL: "runtime/p/python_stdlib.zip", lock: {}, labkit: "runtime/wheels/l.whl", micropip: [], requirements: [] };
/** Resolves once `done()` holds (polled: on a busy machine the fake boots' timers fire late), or fails after 10 s. */
async function until(done, what) {
  for (const limit = Date.now() + 10000; !done(); ) {
    if (Date.now() > limit) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
const alive = () => FakeWorker.all.filter((w) => !w.terminated);

test("two spares: the second boots after the first is ready, and a second run finds one waiting", async () => {
  const python = createPython(RUNTIME);
  await python.boot();
  await until(() => python.settled, "the spares to settle");
  assert.equal(alive().length, 2, "two Pythons booted ahead of need");
  assert.ok(alive().every((w) => w.isReady));
  assert.equal(FakeWorker.mostBooting, 1, "one boot at a time");
  const [first, second] = alive();
  await python.run("a = 1");
  assert.equal(first.terminated, true, "the first request's Python is gone");
  // The second run starts at once, on the Python that was waiting (not on the one booting in the first's place).
  FakeWorker.autoReady = false;
  const started = [];
  await python.run("b = 2", { onStart: () => started.push(alive().includes(second)) });
  assert.deepEqual(started, [true]);
  assert.equal(second.terminated, true);
  FakeWorker.autoReady = true;
  for (const w of alive()) if (!w.isReady) w.ready();
  await until(() => python.settled && alive().length === 2, "the spares refilled to two");
  assert.equal(FakeWorker.mostBooting, 1, "still one boot at a time");
});
