// What the lab's instructor tools share: the page's DOM helpers (text nodes only, never markup), a tools button, the author's
// inline HTML made into nodes, and the two places the tools speak (a live note under the tools, and the note above
// the editor).

let dom = null; // the page's DOM helpers (page/dom.js), handed in by attach(): this bundle shares no module with the page's

/** Use the page's DOM helpers (`page.dom`); attach() calls it before any tool is made. */
export function useDom(pageDom) {
  dom = pageDom;
}

// The page's words (page/i18n.js, main.js's one copy on globalThis.lessonkitWords, as page/words.js reads it for
// the lab): read here rather than imported, so this bundle shares no chunk with the lab's.
/** The message of `key`, its placeholders filled from `params`. */
export const t = (key, params) => globalThis.lessonkitWords.t(key, params);
/** The counted message of `key` for `n`. */
export const tn = (key, n, params) => globalThis.lessonkitWords.tn(key, n, params);
/** A number as the page's language writes it. */
export const num = (value, digits, options) => globalThis.lessonkitWords.num(value, digits, options);

/** An element with attributes and optional text (the page's h()). */
export const h = (tag, attrs, text) => dom.h(tag, attrs, text);

/** A tools button (onClick: null when something else handles its clicks). */
export function button(text, onClick, cls = "") {
  const b = h("button", { type: "button", class: `lab-button instr-button ${cls}`.trim() }, text);
  if (onClick) b.addEventListener("click", onClick);
  return b;
}

// The build renders an author's markdown to inline HTML (code, emphasis, links, math): these are the elements and
// attributes that may come of it. Anything else is dropped, its text kept.
const HTML_NS = "http://www.w3.org/1999/xhtml";
const MATHML_NS = "http://www.w3.org/1998/Math/MathML";
const INLINE = new Set(["a", "abbr", "b", "br", "code", "em", "i", "kbd", "mark", "s", "small", "span", "strong", "sub", "sup"]);
const MATH_ATTRIBUTES = new Set(["display", "displaystyle", "mathvariant", "stretchy", "fence", "separator", "lspace",
  "rspace", "accent", "accentunder", "columnalign", "rowalign", "width", "height", "depth", "minsize", "maxsize",
  "scriptlevel", "form", "movablelimits", "symmetric", "largeop", "linethickness", "encoding"]);

/** Nodes for a string of the build's inline HTML, parsed inertly (no scripts, no loads) and kept to inline markup. */
export function inlineHTML(html) {
  const doc = new DOMParser().parseFromString(`<!DOCTYPE html><body>${String(html)}`, "text/html");
  const out = document.createDocumentFragment();
  for (const node of [...doc.body.childNodes]) out.append(...clean(node));
  return out;
}

/** Whether href leads to a web page (this site's or another's), never a script or data. */
function webLink(href) {
  try {
    return Boolean(href) && ["http:", "https:"].includes(new URL(href, document.baseURI).protocol);
  } catch {
    return false;
  }
}

function clean(node) {
  if (node.nodeType === Node.TEXT_NODE) return [document.createTextNode(node.data)];
  if (node.nodeType !== Node.ELEMENT_NODE) return [];
  const children = () => [...node.childNodes].flatMap(clean);
  const name = node.localName;
  let el = null;
  if (node.namespaceURI === HTML_NS && INLINE.has(name)) {
    el = document.createElement(name);
    if (name === "a") {
      const href = node.getAttribute("href") || "";
      if (webLink(href)) el.setAttribute("href", href);
    }
    if (name === "span" && node.getAttribute("class")) el.setAttribute("class", node.getAttribute("class"));
  } else if (node.namespaceURI === MATHML_NS) {
    el = document.createElementNS(MATHML_NS, name);
    for (const attr of node.attributes) if (MATH_ATTRIBUTES.has(attr.name)) el.setAttribute(attr.name, attr.value);
  }
  if (!el) return children(); // an element inline markup does not make: its text stays
  el.append(...children());
  return [el];
}

/**
 * The tools' two places to speak: `say(text)` in the live note under the tools, and `note(text, actions)` above the
 * editor (restore and share notes, with their buttons).
 */
export class Notes {
  constructor(section, controller, live) {
    this.section = section;
    this.place = controller.restoreNote;
    this.live = live;
    this.kind = ""; // what the note above the editor is about ("restored", "shared", …), "" when hidden
  }

  say(text) {
    this.live.textContent = text;
  }

  /** Show the note above the editor: a sentence and a few buttons ([label, fn] pairs). */
  note(kind, text, actions = [], { focus = false } = {}) {
    const p = this.place;
    if (!p) return;
    this.kind = kind;
    p.replaceChildren(h("span", {}, text), ...actions.map(([label, fn]) => button(label, fn)));
    p.hidden = false;
    p.setAttribute("tabindex", "-1"); // focus target after its own button replaced itself
    if (focus) p.focus();
  }

  /** Say `text` in the note above the editor, its buttons kept, while it is still the note of `kind`. */
  retext(kind, text) {
    const sentence = this.place && this.kind === kind ? this.place.firstElementChild : null;
    if (sentence) sentence.textContent = text;
  }

  clear({ focusEditor = false } = {}) {
    const p = this.place;
    if (!p) return;
    const hadFocus = p.contains(document.activeElement);
    p.replaceChildren();
    p.hidden = true;
    this.kind = "";
    if (hadFocus || focusEditor) this.focusEditor();
  }

  focusEditor() {
    const target = this.section.querySelector(".cm-content") || this.section.querySelector("[data-lab-code]");
    if (target) target.focus();
  }
}
