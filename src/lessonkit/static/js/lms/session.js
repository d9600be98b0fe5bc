// A Session makes every call of one SCO's life: each is followed by GetLastError, and a failure is said once on the
// console (per call, element and code) in the LMS's own words (GetErrorString, GetDiagnostic). Whatever the LMS
// answers, the page keeps working from localStorage. Reads answered 403 ("data model element value not
// initialized": nothing saved yet, as on a first launch) are not failures. An API that throws is an LMS that is gone
// (its window torn down, its page navigated away): the session is "lost", says so once, and calls it no more.

export const NOT_INITIALIZED = "403"; // GetValue of an element the LMS holds no value for yet

function quietly(fn) {
  try {
    return String(fn() ?? "");
  } catch {
    return "";
  }
}

/** One SCO's session on an API: new → open → closed, "refused" when Initialize failed, "lost" when the API threw. */
export class Session {
  constructor(api, { log = console, onLost = () => {} } = {}) {
    this.api = api;
    this.log = log;
    this.onLost = onLost;
    this.state = "new";
    this.errors = []; // {call, element, code, text, diagnostic}: every failure, for the page and its tests
    this.said = new Set();
  }

  /** The API's answer to one call, as text; null when it threw (then the session is lost, or refused if never open). */
  _call(name, element, fn) {
    try {
      return String(fn());
    } catch (thrown) {
      const where = element ? `("${element}")` : "";
      this.errors.push({ call: name, element, code: "", text: String(thrown), diagnostic: "" });
      this.log.warn(`lessonkit: the LMS stopped answering: ${name}${where} failed with ${thrown}; progress stays saved in this browser.`);
      const lost = this.state === "open";
      this.state = lost ? "lost" : "refused";
      if (lost) this.onLost();
      return null;
    }
  }

  /** The LMS's error after a call (null when there is none). */
  _error(name, element = "") {
    const code = quietly(() => this.api.GetLastError()) || "0";
    if (code === "0") return null;
    const err = { call: name, element, code, text: quietly(() => this.api.GetErrorString(code)), diagnostic: quietly(() => this.api.GetDiagnostic(code)) };
    this.errors.push(err);
    return err;
  }

  /** Say a failure on the console, once for each call, element (indices left out) and code. */
  _say(err, what = "") {
    const element = err ? err.element.replace(/\.\d+\./g, ".n.") : "";
    const key = `${err ? err.call : what}|${element}|${err ? err.code : ""}`;
    if (this.said.has(key)) return;
    this.said.add(key);
    if (!err) {
      this.log.warn(`lessonkit: the LMS answered ${what} with false; progress stays saved in this browser.`);
      return;
    }
    const where = err.element ? `("${err.element}")` : "";
    const detail = err.diagnostic && err.diagnostic !== err.text ? ` (${err.diagnostic})` : "";
    this.log.warn(`lessonkit: the LMS refused ${err.call}${where}: error ${err.code} ${err.text}${detail}; progress stays saved in this browser.`);
  }

  initialize() {
    const answer = this._call("Initialize", "", () => this.api.Initialize(""));
    if (answer === null) return false;
    const ok = answer === "true";
    const err = this._error("Initialize");
    if (ok && !err) {
      this.state = "open";
      return true;
    }
    this.state = "refused";
    this._say(err, "Initialize");
    return false;
  }

  /** {value, ok}: ok false when the LMS failed the read (a 403 is a read of nothing saved yet: ok, ""). */
  read(element) {
    if (this.state !== "open") return { value: "", ok: false };
    const value = this._call("GetValue", element, () => this.api.GetValue(element));
    if (value === null) return { value: "", ok: false };
    const err = this._error("GetValue", element);
    if (!err) return { value, ok: true };
    if (err.code === NOT_INITIALIZED) return { value: "", ok: true };
    this._say(err);
    return { value: "", ok: false };
  }

  /** The element's value, "" when it has none or the LMS failed the read. */
  get(element) {
    return this.read(element).value;
  }

  set(element, value) {
    if (this.state !== "open") return false;
    const answer = this._call("SetValue", element, () => this.api.SetValue(element, String(value)));
    if (answer === null) return false;
    const ok = answer === "true";
    const err = this._error("SetValue", element);
    if (err) this._say(err);
    else if (!ok) this._say(null, `SetValue("${element}")`);
    return ok && !err;
  }

  commit() {
    if (this.state !== "open") return false;
    const answer = this._call("Commit", "", () => this.api.Commit(""));
    if (answer === null) return false;
    const ok = answer === "true";
    const err = this._error("Commit");
    if (err) this._say(err);
    else if (!ok) this._say(null, "Commit");
    return ok && !err;
  }

  /** End the session; closed even when the LMS refuses (the page is going away, or has handed over). */
  terminate() {
    if (this.state !== "open") return false;
    const answer = this._call("Terminate", "", () => this.api.Terminate(""));
    if (answer === null) return false;
    const ok = answer === "true";
    const err = this._error("Terminate");
    if (err) this._say(err);
    else if (!ok) this._say(null, "Terminate");
    this.state = "closed";
    return ok && !err;
  }
}
