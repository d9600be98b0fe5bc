// One SCO's session (static/js/lms/session.js) on the real SCORM 2004 runtime (npm scorm-again, the one the
// browser tests' LMS embeds): reads of nothing saved are not failures; every failure is said once, in the LMS's words.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Scorm2004API } from "../../node_modules/scorm-again/dist/esm/scorm2004.js";
import { Session } from "../../static/js/lms/session.js";

const console_ = () => {
  const said = [];
  return { said, warn: (text) => said.push(text) };
};

test("a first launch: Initialize, reads of nothing saved yet are fine, writes, Commit, Terminate", () => {
  const api = new Scorm2004API({ logLevel: 5 });
  const log = console_();
  const s = new Session(api, { log });
  assert.equal(s.initialize(), true);
  assert.deepEqual(s.read("cmi.suspend_data"), { value: "", ok: true }); // 403: nothing saved
  assert.equal(s.get("cmi.interactions._count"), "0");
  assert.equal(s.set("cmi.completion_status", "incomplete"), true);
  assert.equal(s.commit(), true);
  assert.equal(s.terminate(), true);
  assert.equal(s.state, "closed");
  assert.equal(s.set("cmi.location", "x"), false, "nothing after Terminate");
  assert.deepEqual(log.said, []);
});

test("a refused value: said once per element and code, in the LMS's words", () => {
  const api = new Scorm2004API({ logLevel: 5 });
  const log = console_();
  const s = new Session(api, { log });
  s.initialize();
  assert.equal(s.set("cmi.interactions.0.id", "urn:lessonkit:c:l:b:1"), true);
  assert.equal(s.set("cmi.interactions.0.timestamp", "2026-12-01T10:15:00Z"), false);
  assert.equal(s.set("cmi.interactions.0.timestamp", "not a time"), false);
  assert.equal(s.set("cmi.entry", "resume"), false); // read only
  assert.deepEqual(log.said, [
    'lessonkit: the LMS refused SetValue("cmi.interactions.0.timestamp"): error 406 Data Model Element Type Mismatch; progress stays saved in this browser.',
    'lessonkit: the LMS refused SetValue("cmi.entry"): error 404 Data Model Element Is Read Only; progress stays saved in this browser.',
  ]);
  assert.deepEqual(s.errors.map((e) => e.code), ["406", "406", "404"]);
});

test("an LMS whose Commit fails (scorm-again's own commit, its transport answering 391)", () => {
  const api = new Scorm2004API({ logLevel: 5, lmsCommitUrl: "/never", httpService: { processHttpRequest: () => ({ result: "false", errorCode: 391 }), updateSettings() {} } });
  const log = console_();
  const s = new Session(api, { log });
  s.initialize();
  assert.equal(s.commit(), false);
  assert.equal(s.commit(), false);
  assert.equal(log.said.length, 1);
  assert.match(log.said[0], /^lessonkit: the LMS refused Commit: error 391 General Commit Failure/);
});

test("Initialize refused; an API that throws", () => {
  const api = new Scorm2004API({ logLevel: 5 });
  api.Initialize("");
  api.Terminate("");
  const log = console_();
  const s = new Session(api, { log });
  assert.equal(s.initialize(), false);
  assert.equal(s.state, "refused");
  assert.match(log.said[0], /refused Initialize: error 104 /);
  const said = console_();
  const broken = new Session(Object.fromEntries(["Initialize", "Terminate", "GetValue", "SetValue", "Commit", "GetLastError", "GetErrorString", "GetDiagnostic"].map((m) => [m, () => { throw new Error("gone"); }])), { log: said });
  assert.equal(broken.initialize(), false);
  assert.equal(broken.state, "refused");
  assert.deepEqual(said.said, ["lessonkit: the LMS stopped answering: Initialize failed with Error: gone; progress stays saved in this browser."]);
});

test("an LMS lost mid-session (its API throws): said once, the session is lost, and the API is called no more", () => {
  const api = new Scorm2004API({ logLevel: 5 });
  let gone = false;
  const calls = [];
  const facade = new Proxy(api, {
    get: (target, name) => (...args) => {
      calls.push(name);
      if (gone) throw new TypeError("can't access dead object");
      return target[name](...args);
    },
  });
  const log = console_();
  let lost = 0;
  const s = new Session(facade, { log, onLost: () => { lost += 1; } });
  assert.equal(s.initialize(), true);
  assert.equal(s.set("cmi.location", "part-1"), true);
  gone = true;
  const before = calls.length;
  assert.equal(s.set("cmi.location", "part-2"), false);
  assert.equal(s.state, "lost");
  assert.equal(s.commit(), false);
  assert.deepEqual(s.read("cmi.suspend_data"), { value: "", ok: false });
  assert.equal(s.terminate(), false);
  assert.equal(calls.length, before + 1, "one call, the one that threw");
  assert.equal(lost, 1);
  assert.deepEqual(log.said, ['lessonkit: the LMS stopped answering: SetValue("cmi.location") failed with TypeError: can\'t access dead object; progress stays saved in this browser.']);
});
