// The page's broker (static/js/lab/client.js) with stand-in workers: one Python per request, a spare booted when a
// request ends, what a worker that breaks the protocol or floods the page gets.
import assert from "node:assert/strict";
import { after, test } from "node:test";

const LIMITS = { chars: 111_000, lines: 2_420, messages: 5_008, checkChars: 31_000, checkLines: 820, errorChars: 11_000,
  charts: 16 };
const DIAGNOSTICS = { ms: 9, pythonMs: 7, snapshot: false, snapshotError: "", isolated: false };

// The page's globals the client uses, in Node: a document's URL, fetch for the worker's script, and Worker.
globalThis.document = { baseURI: "http://127.0.0.1:8000/lesson.html" };
const fetched = [];
globalThis.fetch = async (url, init) => {
  fetched.push([url, init.integrity]);
  return new Response("// the worker's script");
};

/** A stand-in for one Python worker: the test answers for it (FakeWorker.answer), as the real one would. */
class FakeWorker {
  static made = []; // this test's
  static all = [];
  static autoReady = true;
  static answer = () => {};

  constructor(url, options) {
    Object.assign(this, { url, options, terminated: false, port: null, requests: [] });
    FakeWorker.made.push(this);
    FakeWorker.all.push(this);
  }

  postMessage(init) {
    this.init = init;
    this.port = init.port;
    this.port.onmessage = (event) => {
      this.requests.push(event.data);
      FakeWorker.answer(this, event.data);
    };
    if (FakeWorker.autoReady) queueMicrotask(() => this.ready());
  }

  reply(message) {
    this.port.postMessage(message);
  }

  ready() {
    this.reply({ type: "ready", id: this.init.id, diagnostics: DIAGNOSTICS, limits: LIMITS });
  }

  terminate() {
    this.terminated = true;
    this.port.close();
  }
}
globalThis.Worker = FakeWorker;
after(() => {
  for (const worker of FakeWorker.all) if (worker.port) worker.port.close(); // open ports would keep Node running
});

const { createPython, OUTPUT_LIMIT, PROTOCOL_BROKEN } = await import("../../static/js/lab/client.js");
const RUNTIME = { worker: "static/h/js/lab-worker.js", workerIntegrity: "sha384-abc", indexURL: "runtime/p/",
  stdLibURL: "runtime/p/python_stdlib.zip", lock: {}, labkit: "runtime/wheels/l.whl", micropip: [], requirements: [] };
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** Resolves once `done()` holds (polled: on a busy machine the fakes' async steps finish late), or fails after 10 s. */
async function until(done, what) {
  for (const limit = Date.now() + 10000; !done(); ) {
    if (Date.now() > limit) assert.fail(`timed out waiting for ${what}`);
    await tick();
  }
}
const result = (id, fields = {}) => ({ type: "result", id, ok: true, ms: 1, error: null, charts: [], truncated: false,
  stopped: false, ...fields });
const alive = () => FakeWorker.made.filter((w) => !w.terminated);

/** A fresh client whose first Python is ready; each request's worker answers it with `answer(worker, request)`. */
async function client(answer) {
  FakeWorker.made = [];
  FakeWorker.answer = answer;
  const python = createPython(RUNTIME);
  await python.boot();
  return python;
}

test("every request gets a fresh worker; the next one boots when a request ends", async () => {
  const python = await client((w, r) => {
    w.reply({ type: "stdout", id: r.id, text: `ran ${r.code}\n` });
    w.reply(result(r.id));
  });
  assert.equal(python.state, "ready");
  assert.deepEqual(fetched[0], ["http://127.0.0.1:8000/static/h/js/lab-worker.js", "sha384-abc"]);
  assert.match(FakeWorker.made[0].url, /^blob:/);
  const out = [];
  const first = await python.run("1", { onOutput: (stream, text) => out.push(text) });
  assert.equal(first.ok, true);
  assert.equal(FakeWorker.made[0].terminated, true, "its worker is gone with the request");
  assert.equal(python.state, "starting");
  await python.run("2", { onOutput: (stream, text) => out.push(text) });
  assert.deepEqual(out, ["ran 1\n", "ran 2\n"]);
  assert.deepEqual(FakeWorker.made.map((w) => w.requests.length).slice(0, 2), [1, 1]);
  assert.ok(alive().length <= 1);
  await until(() => python.state === "ready", "the next Python to be ready");
});

test("a request waits for the spare; requests queue one at a time", async () => {
  FakeWorker.autoReady = false;
  FakeWorker.made = [];
  FakeWorker.answer = (w, r) => w.reply(result(r.id));
  const python = createPython(RUNTIME);
  const booted = python.boot();
  await tick();
  const a = python.run("a");
  const b = python.run("b");
  assert.equal(python.state, "loading");
  FakeWorker.made[0].ready();
  await booted;
  await a;
  await until(() => FakeWorker.made.length === 2, "the next Python's worker");
  FakeWorker.made[1].ready();
  assert.equal((await b).ok, true);
  assert.deepEqual(FakeWorker.made.map((w) => w.requests.map((r) => r.code)).slice(0, 2), [["a"], ["b"]]);
  FakeWorker.autoReady = true;
});

test("Stop ends the request with its worker (no isolation); a request still waiting never runs", async () => {
  const python = await client(() => {}); // a run that never ends
  const running = python.run("while True: pass");
  const waiting = python.run("print('never')");
  await tick();
  await python.stop();
  const stopped = await running;
  assert.equal(stopped.stopped, true);
  assert.equal(stopped.restarted, true);
  assert.equal(FakeWorker.made[0].terminated, true);
  await python.stop(); // the waiting one: taken out of the queue
  const never = await waiting;
  assert.equal(never.stopped, true);
  assert.equal(never.restarted, false);
  assert.equal(FakeWorker.made.flatMap((w) => w.requests).length, 1);
});

test("a flood of output: within the caps, then the worker is ended and the run says so", async () => {
  const python = await client((w, r) => {
    for (let i = 0; i < 20_000; i++) w.reply({ type: "stdout", id: r.id, text: "x".repeat(2_000) });
    w.reply(result(r.id));
  });
  let shown = 0;
  const warn = console.warn;
  const warnings = [];
  console.warn = (text) => warnings.push(text);
  const ran = await python.run("flood", { onOutput: (stream, text) => { shown += text.length; } });
  console.warn = warn;
  assert.equal(shown, LIMITS.chars);
  assert.equal(ran.truncated, true);
  assert.equal(ran.error.message, OUTPUT_LIMIT);
  assert.equal(FakeWorker.made[0].terminated, true);
  assert.equal(warnings.length, 1, warnings.join("\n"));
});

test("output for another request, or a second answer, ends the worker", async () => {
  const python = await client((w, r) => {
    w.reply({ type: "stdout", id: r.id + 1, text: "forged\n" });
    w.reply(result(r.id, { ok: true }));
  });
  const warn = console.warn;
  console.warn = () => {};
  const ran = await python.run("x");
  console.warn = warn;
  assert.equal(ran.ok, false);
  assert.equal(ran.error.message, PROTOCOL_BROKEN);
  assert.equal(FakeWorker.made[0].terminated, true);
});

test("a check's report that does not add up is not a report", async () => {
  const checks = [{ name: "one", code: "assert f() == 1", secret: false }];
  const python = await client((w, r) => w.reply({ type: "report", id: r.id, ms: 1, ok: true, passed: 1, total: 1,
    error: null, checks: [{ name: "two", secret: false, status: "passed", message: "", traceback: "" }], output: "",
    truncated: false }));
  const warn = console.warn;
  console.warn = () => {};
  const checked = await python.check("def f(): return 2", { checks });
  console.warn = warn;
  assert.equal(checked.ok, false);
  assert.equal(checked.passed, 0);
  assert.deepEqual(checked.checks.map((c) => [c.name, c.status]), [["one", "skipped"]]);
});

test("a spare that sends anything before its request is ended, and the request gets a fresh one", async () => {
  const python = await client((w, r) => w.reply(result(r.id)));
  const warn = console.warn;
  console.warn = () => {};
  FakeWorker.made[0].reply({ type: "stdout", id: 99, text: "early" });
  await tick();
  console.warn = warn;
  assert.equal(FakeWorker.made[0].terminated, true);
  assert.equal((await python.run("x")).ok, true);
  assert.equal(FakeWorker.made[0].requests.length, 0);
  assert.equal(FakeWorker.made[1].requests.length, 1);
});
