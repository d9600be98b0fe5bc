// A learner in a class: joins by the link the instructor shares (its #class=<code> holds the class's id, name and
// write-only key), or by typing or pasting that code (or the link) into the panel's "Join with a code" field, and
// from then on this browser sends the class's Learning Record Store (course.yaml's
// `class: lrs:`, never the link's) an xAPI statement for each answer checked, exercise checked and lesson passed,
// failed or completed (statements.js says which). Nothing is sent before the learner joins, or after they leave;
// the page says what is sent and where, on every page while they are in the class.
//
// The key can write statements and read none (the instructor's read key is never in the site or the link): the
// class's answers are read with `lessonkit class show` only. The membership is kept in this browser
// (storage-layout.json's "class" key): {id, name, key, learner, account, home, sent}, `sent` the facts already
// stored by the LRS, so a reload or a second tab sends nothing twice.
import { language, lessonEntries, t } from "../course/progress.js";
import { facts, parseCode, statement } from "./statements.js";

const DEBOUNCE_MS = 300;
const RETRY_MS = 15000;
const MAX_SENT = 4000; // facts remembered as sent (far above a course's questions and exercises)

function membershipShape(is) {
  return is.shape({ id: is.string, name: is.string, key: is.string, learner: is.string, account: is.string,
    home: is.string, sent: (v) => Array.isArray(v) && v.length <= MAX_SENT && v.every(is.string) });
}

function uuid() {
  return crypto.randomUUID();
}

/**
 * The join code of the URL's fragment (#class=<code>), taken out of the address bar so it is not shared on: null when
 * there is none, else {code}, its code null when it cannot be read.
 */
function codeFromURL() {
  const hash = new URLSearchParams(location.hash.slice(1));
  const code = hash.get("class");
  if (code === null) return null;
  hash.delete("class");
  const rest = hash.toString();
  history.replaceState(history.state, "", `${location.pathname}${location.search}${rest ? `#${rest}` : ""}`);
  return { code: parseCode(code) };
}

/** An element with attributes and children (text or elements). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.append(...children);
  return el;
}

export function start(page) {
  const store = page.store;
  const lrs = page.class.lrs;
  const host = new URL(lrs).host;
  const shape = membershipShape(store.is);
  let member = store.load(store.CLASS_KEY, shape);
  const main = document.querySelector("main") || document.body;
  const panel = h("section", { class: "class-panel", "aria-label": t("class.region") });
  main.prepend(panel);
  const fromURL = codeFromURL();
  const offer = fromURL?.code;

  /** The way in for a learner not in the class: a closed disclosure with the code's field. */
  function showCode(...before) {
    const field = h("input", { type: "text", autocomplete: "off", autocapitalize: "off", spellcheck: "false",
      maxlength: "2000", required: "" });
    const label = h("label", {}, `${t("class.code_label")} `, field);
    const go = h("button", { type: "button" }, t("class.code_join"));
    const note = h("p", { role: "status" });
    const form = h("details", { class: "class-code" }, h("summary", {}, t("class.code_open")), label,
      h("p", { class: "class-actions" }, go), note);
    panel.replaceChildren(...before, form);
    const tryCode = () => {
      const code = parseCode(field.value);
      if (!code) {
        note.textContent = t("class.code_bad");
        field.focus();
        return;
      }
      showJoin(code);
    };
    go.addEventListener("click", tryCode);
    field.addEventListener("keydown", (event) => {
      if (event.key === "Enter") tryCode();
    });
    return { form, note };
  }

  function showJoin(code) {
    const name = h("input", { type: "text", autocomplete: "name", maxlength: "100", required: "" });
    name.value = page.learner?.name || "";
    const label = h("label", {}, `${t("class.name_label")} `, name);
    const join = h("button", { type: "button" }, t("class.join"));
    const later = h("button", { type: "button", class: "secondary" }, t("class.not_now"));
    const note = h("p", { role: "status" });
    panel.replaceChildren(h("h2", {}, t("class.join_heading", { name: code.name })),
      h("p", {}, t("class.join_sends", { host })),
      label, h("p", { class: "class-actions" }, join, " ", later), note);
    join.addEventListener("click", () => {
      const learner = name.value.trim();
      if (!learner) {
        note.textContent = t("class.name_first");
        name.focus();
        return;
      }
      member = { id: code.id, name: code.name, key: code.key, learner, account: page.learner?.id || uuid(),
        home: new URL(".", location.href).href, sent: [] };
      if (!store.save(store.CLASS_KEY, member)) {
        note.textContent = t("class.cannot_keep");
        member = null;
        return;
      }
      showMember();
      send();
    });
    later.addEventListener("click", () => showCode());
    name.focus();
  }

  const status = h("span", { role: "status" });
  function showMember() {
    const leave = h("button", { type: "button", class: "secondary" }, t("class.leave"));
    panel.replaceChildren(h("p", {}, t("class.member", { name: member.name, learner: member.learner, host }), " ", status, " ", leave));
    leave.addEventListener("click", () => {
      store.remove(store.CLASS_KEY);
      member = null;
      showCode(h("p", { role: "status" }, t("class.left")));
    });
  }

  // Sending: every fact of this lesson not yet stored by the LRS, in one request, a moment after a block saves.
  const known = page.page === "lesson" ? lessonEntries({ slug: page.lesson, version: page.version, blocks: page.lms.blocks }, store.saved) : new Map();
  let timer = 0;
  let busy = false;
  let again = false; // a block saved while a request was out: send once more after it
  function entries() {
    const out = {};
    for (const [name, e] of known) {
      const value = store.load(store.storeKey(page.lesson, e.block.id, e.part), e.shape);
      if (value !== null) out[name] = value;
    }
    return out;
  }
  async function send() {
    clearTimeout(timer);
    if (busy) {
      again = true;
      return;
    }
    if (!member || page.page !== "lesson") return;
    const sent = new Set(member.sent);
    const todo = facts(page, {}, entries()).filter((f) => !sent.has(f.key));
    if (!todo.length) return;
    busy = true;
    const now = new Date();
    try {
      const response = await fetch(`${lrs}statements`, {
        method: "POST", credentials: "omit", cache: "no-store",
        headers: { Authorization: `Basic ${btoa(member.key)}`, "X-Experience-API-Version": "1.0.3", "Content-Type": "application/json" },
        body: JSON.stringify(todo.map((f) => statement(f, member, page, now))),
      });
      // A statement the LRS refuses (400) would be refused again: it is given up, said once on the console.
      if (response.status === 400) console.warn(`lessonkit: the class's record store refused ${todo.length} statements: ${(await response.text()).slice(0, 300)}`);
      else if (!response.ok) throw new Error(`the record store answered ${response.status}`);
      const latest = store.load(store.CLASS_KEY, shape); // another tab may have sent too
      if (!latest || latest.id !== member.id) return;
      member = { ...latest, sent: [...new Set([...latest.sent, ...todo.map((f) => f.key)])].slice(-MAX_SENT) };
      store.save(store.CLASS_KEY, member);
      if (response.ok) status.textContent = t("class.sent", { time: now.toLocaleTimeString(language()) });
    } catch (err) {
      status.textContent = t("class.not_sent");
      console.warn(`lessonkit: sending to the class's record store failed: ${err.message}`);
      timer = setTimeout(send, RETRY_MS);
    } finally {
      busy = false;
      if (again) {
        again = false;
        timer = setTimeout(send, 0);
      }
    }
  }

  if (offer && !(member && member.id === offer.id)) showJoin(offer);
  else if (member) showMember();
  else if (fromURL) { // a link whose code cannot be read: said, with the field open to paste the code again
    const { form, note } = showCode();
    form.open = true;
    note.textContent = t("class.code_bad");
  } else showCode();
  if (page.page === "lesson") {
    store.onSaved(() => {
      clearTimeout(timer);
      timer = setTimeout(send, DEBOUNCE_MS);
    });
    send();
  }
}
