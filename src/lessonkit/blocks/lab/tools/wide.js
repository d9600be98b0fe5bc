// What of shared code the lab's editor does not show without scrolling sideways. A link can hide a statement past
// the editor's right edge (thousands of spaces or tabs, then code) that Run would run, and a phone's editor shows
// far fewer characters of a line than a laptop's: so each line's width is measured as the editor draws it
// (its font, its tab stops, CodeMirror's placeholders for special characters) and set against the width the editor
// shows now, again whenever that changes (the window, presenter mode, CodeMirror taking the textarea's place).

import { num, tn } from "./ui.js";

const LISTED_LINES = 5; // wide lines a note names by number
const LINE_BREAK = /\r\n?|\n/; // where CodeMirror (and a textarea) starts a new line
// CodeMirror's highlightSpecialChars (its default set, which editor-entry.js keeps): each is drawn as a placeholder
// (a Control Picture for ASCII controls, else "•"), not as itself.
const SPECIALS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u00ad\u061c\u200b\u200e\u200f\u2028\u2029\u202d\u202e\u2066\u2067\u2069\ufeff\ufff9-\ufffc]/gu;
const placeholder = (ch) => (ch.charCodeAt(0) < 32 ? String.fromCharCode(0x2400 + ch.charCodeAt(0)) : "\u2022");
const PRINTABLE = /^[\t\x20-\x7e]*$/; // drawn in a monospaced font, each the width of any other
// What of the editor's text style decides how wide a line is drawn.
const FONT = ["fontFamily", "fontSize", "fontWeight", "fontStyle", "fontStretch", "fontVariant", "fontFeatureSettings",
  "fontVariationSettings", "fontKerning", "letterSpacing", "wordSpacing", "textTransform", "tabSize"];
const RULER = 100; // characters of the line that measures a character's width

/** The columns a line of printable ASCII and tabs takes, each tab to the next multiple of tabSize. */
export function columns(line, tabSize) {
  let n = 0;
  for (const ch of line) n = ch === "\t" ? (Math.floor(n / tabSize) + 1) * tabSize : n + 1;
  return n;
}

/**
 * The editor in `section` as shown now: {style: its text's computed style, visible: px of a line it shows without
 * scrolling sideways, special: whether special characters are drawn as placeholders (CodeMirror)}; null while it is
 * not laid out.
 */
function shownEditor(section) {
  const cm = section.querySelector(".cm-editor");
  if (cm && cm.getClientRects().length) {
    const scroller = cm.querySelector(".cm-scroller");
    const line = cm.querySelector(".cm-line");
    if (!scroller || !line) return null;
    const style = getComputedStyle(line);
    const start = line.getBoundingClientRect().left + scroller.scrollLeft + parseFloat(style.paddingLeft);
    const end = scroller.getBoundingClientRect().left + scroller.clientLeft + scroller.clientWidth;
    return { style, visible: end - start, special: true };
  }
  const area = section.querySelector("[data-lab-code]");
  if (!area || !area.getClientRects().length) return null;
  const style = getComputedStyle(area);
  return { style, visible: area.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight), special: false };
}

/**
 * Each line's width in characters of the editor's font, as `editor` (shownEditor) draws it, and a character's width
 * in px: {char, widths}. Lines of printable ASCII and tabs are counted; the others are measured off screen.
 */
function measure(lines, editor) {
  const tabSize = parseInt(editor.style.tabSize, 10) || 4;
  const box = document.createElement("div");
  box.setAttribute("aria-hidden", "true");
  Object.assign(box.style, { position: "absolute", top: "0", left: "0", visibility: "hidden", whiteSpace: "pre",
    direction: "ltr", unicodeBidi: "isolate", width: "max-content", contain: "layout style" });
  for (const name of FONT) box.style[name] = editor.style[name];
  const row = (text) => {
    const div = document.createElement("div");
    div.style.width = "max-content";
    div.textContent = text;
    return box.appendChild(div);
  };
  const ruler = row("0".repeat(RULER));
  const drawn = lines.map((line) => (!line || PRINTABLE.test(line) ? null
    : row(editor.special ? line.replace(SPECIALS, placeholder) : line)));
  document.body.append(box);
  try {
    const char = ruler.getBoundingClientRect().width / RULER;
    const widths = lines.map((line, i) => (drawn[i] ? drawn[i].getBoundingClientRect().width / char : columns(line, tabSize)));
    return { char, widths };
  } finally {
    box.remove();
  }
}

/** What the note says of lines (their numbers and widths in characters) wider than the editor: "" when none is. */
function noteOf(wide) {
  if (!wide.length) return "";
  const longest = Math.max(...wide.map(([, n]) => n));
  const numbers = wide.slice(0, LISTED_LINES).map(([n]) => num(n, null, { grouping: false })).join(", ");
  const params = { lines: numbers, longest: num(longest) };
  const note = wide.length > LISTED_LINES ? tn("lab.wide_note_more", wide.length - LISTED_LINES, params)
    : tn("lab.wide_note", wide.length, params);
  return ` ${note}`;
}

/**
 * Watches how much of `code` the lab's editor in `section` shows: `note()` is what the share note adds (the lines
 * wider than the editor, by number, and the widest's width; "" when every line fits, or while the editor is not laid
 * out), and `onChange(note)` is called whenever that changes, until stop().
 */
export class WideLines {
  constructor(section, code, onChange) {
    this.section = section;
    this.lines = String(code).split(LINE_BREAK);
    this.onChange = onChange;
    this.measured = null; // {key: the font measured with, char, widths}
    this.last = this.note();
    this.observer = typeof ResizeObserver === "function" ? new ResizeObserver(() => this.update()) : null;
    this.observed = new Set();
    this.observe();
  }

  /** The note for the editor as shown now. */
  note() {
    const editor = shownEditor(this.section);
    if (!editor || editor.visible <= 0) return "";
    const key = `${editor.special}|${FONT.map((name) => editor.style[name]).join("|")}`;
    if (!this.measured || this.measured.key !== key) this.measured = { key, ...measure(this.lines, editor) };
    const { char, widths } = this.measured;
    const shown = editor.visible / char; // characters the editor shows of a line
    const wide = [];
    widths.forEach((width, i) => {
      if (width > shown + 0.01) wide.push([i + 1, Math.round(width)]); // a hundredth: the rounding of px
    });
    return noteOf(wide);
  }

  /** Watch the editor's elements (the textarea, and CodeMirror's once it is there): a change of size re-measures. */
  observe() {
    if (!this.observer) return;
    const box = this.section.querySelector("[data-lab-editor]");
    const cm = this.section.querySelector(".cm-editor");
    const parts = [box, this.section.querySelector("[data-lab-code]"), cm && cm.querySelector(".cm-content"), cm];
    for (const el of parts) {
      if (el && !this.observed.has(el)) {
        this.observed.add(el);
        this.observer.observe(el);
      }
    }
  }

  update() {
    this.observe();
    const note = this.note();
    if (note === this.last) return;
    this.last = note;
    this.onChange(note);
  }

  stop() {
    if (this.observer) this.observer.disconnect();
    this.observed.clear();
  }
}
