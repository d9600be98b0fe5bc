import { t } from "../page/words.js";
/**
 * A run's output shown the way a terminal shows it, and always as text (textContent, never HTML).
 *
 * - "\r" returns to the start of the line and what follows overwrites it; "\b" steps back one column; "\n" ends the
 *   line. This holds across output batches and between stdout and stderr, which share one screen as in a terminal.
 * - SGR escapes (ESC [ … m) become classes on <span>s: the 16 colours (256-colour and RGB codes map to the nearest
 *   of them), bold, italic, underline, strike-through and inverse. Classes rather than the program's own colours,
 *   so the page's palette keeps every colour readable in the light and the dark theme; a background colour always
 *   comes with the page's own text colour on it. ESC [ K erases in the line, ESC [ C / D / G move along it; any
 *   other escape is consumed, as a terminal does, and one split between batches waits for its end.
 * - Bidi controls (which would reorder the rest of the line) and other control characters are shown as tokens such
 *   as ⟨U+202E⟩, so output reads in the order it was printed.
 *
 * Ended lines are never touched again, so a print flood costs what its text costs; only the unfinished last line is
 * redrawn, and only when something overwrote a part of it that is already on the page.
 *
 * This module is the pure model (no DOM): `Screen`, `controlToken`, `splitControls`. output-dom.js applies it to an
 * output <pre>: `writeOutput(pre, stream, text)`, `clearOutput(pre)` and `outputWriter(pre)`.
 */

const ESC = "\x1b";
// What plain appending cannot handle: line controls, escapes, and the characters shown as tokens ("\t" is text).
const SPECIAL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// Shown as a visible token wherever they end up.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const HAS_CONTROL = new RegExp(CONTROL.source);
const BIDI_NAMES = {
  0x061c: "ARABIC LETTER MARK",
  0x200e: "LEFT-TO-RIGHT MARK",
  0x200f: "RIGHT-TO-LEFT MARK",
  0x202a: "LEFT-TO-RIGHT EMBEDDING",
  0x202b: "RIGHT-TO-LEFT EMBEDDING",
  0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE",
  0x202e: "RIGHT-TO-LEFT OVERRIDE",
  0x2066: "LEFT-TO-RIGHT ISOLATE",
  0x2067: "RIGHT-TO-LEFT ISOLATE",
  0x2068: "FIRST STRONG ISOLATE",
  0x2069: "POP DIRECTIONAL ISOLATE",
};
const STREAM_CLASS = { stdout: "", stderr: "lab-stderr", notice: "lab-notice" };
const MAX_CSI = 64; // longer than any real control sequence: past this an unfinished one is shown, not waited for
const MAX_STRING = 4096; // OSC (titles, links) and the like
const COLUMNS = 80; // cursor moves stop here (or at the line's end), as at a terminal's margin

// ---------- colours ----------

const COLOUR_NAMES = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"];
// xterm's default 16 colours: the targets for 256-colour and RGB codes.
const XTERM_RGB = [
  [0, 0, 0], [205, 0, 0], [0, 205, 0], [205, 205, 0], [0, 0, 238], [205, 0, 205], [0, 205, 205], [229, 229, 229],
  [127, 127, 127], [255, 0, 0], [0, 255, 0], [255, 255, 0], [92, 92, 255], [255, 0, 255], [0, 255, 255], [255, 255, 255],
];
const CUBE = [0, 95, 135, 175, 215, 255];

function nearest(r, g, b) {
  let best = 0;
  let bestDistance = Infinity;
  XTERM_RGB.forEach(([R, G, B], i) => {
    const d = (r - R) ** 2 + (g - G) ** 2 + (b - B) ** 2;
    if (d < bestDistance) [best, bestDistance] = [i, d];
  });
  return best;
}

function from256(n) {
  if (!Number.isInteger(n) || n < 0 || n > 255) return undefined;
  if (n < 16) return n;
  if (n >= 232) {
    const level = 8 + 10 * (n - 232);
    return nearest(level, level, level);
  }
  const i = n - 16;
  return nearest(CUBE[Math.floor(i / 36)], CUBE[Math.floor(i / 6) % 6], CUBE[i % 6]);
}

function fromRGB(r, g, b) {
  return [r, g, b].every((c) => Number.isInteger(c) && c >= 0 && c <= 255) ? nearest(r, g, b) : undefined;
}

const colourName = (i) => (i < 8 ? COLOUR_NAMES[i] : `bright-${COLOUR_NAMES[i - 8]}`);

const PLAIN = Object.freeze({ fg: null, bg: null, bold: false, italic: false, underline: false, strike: false, inverse: false });

/** The style after an SGR sequence with these parameters (the text between "ESC [" and "m"). */
function applySGR(style, params) {
  const next = { ...style };
  const items = params.split(";");
  for (let i = 0; i < items.length; i += 1) {
    const sub = items[i].split(":").map((s) => (s === "" ? 0 : Number(s)));
    const n = sub[0];
    if (n === 38 || n === 48) {
      let colour;
      if (sub.length > 1) colour = sub[1] === 5 ? from256(sub[2]) : sub[1] === 2 ? fromRGB(...sub.slice(-3)) : undefined;
      else if (Number(items[i + 1]) === 5) {
        colour = from256(Number(items[i + 2]));
        i += 2;
      } else if (Number(items[i + 1]) === 2) {
        colour = fromRGB(Number(items[i + 2]), Number(items[i + 3]), Number(items[i + 4]));
        i += 4;
      }
      if (colour !== undefined) next[n === 38 ? "fg" : "bg"] = colour;
      continue;
    }
    if (n === 0) Object.assign(next, PLAIN);
    else if (n === 1) next.bold = true;
    else if (n === 3) next.italic = true;
    else if (n === 4 || n === 21) next.underline = sub[1] !== 0; // 4:0 is "no underline"
    else if (n === 7) next.inverse = true;
    else if (n === 9) next.strike = true;
    else if (n === 22) next.bold = false;
    else if (n === 23) next.italic = false;
    else if (n === 24) next.underline = false;
    else if (n === 27) next.inverse = false;
    else if (n === 29) next.strike = false;
    else if (n >= 30 && n <= 37) next.fg = n - 30;
    else if (n === 39) next.fg = null;
    else if (n >= 40 && n <= 47) next.bg = n - 40;
    else if (n === 49) next.bg = null;
    else if (n >= 90 && n <= 97) next.fg = n - 90 + 8;
    else if (n >= 100 && n <= 107) next.bg = n - 100 + 8;
    // anything else (faint, blink, conceal, fonts…) is not shown: it would only make text harder to read
  }
  return next;
}

/** The classes for a style: names from a fixed list, never from the output itself. */
function styleClasses(style) {
  const classes = [];
  // Inverse swaps the colours; "default" is the page's own text colour as a background.
  const fg = style.inverse ? style.bg : style.fg;
  const bg = style.inverse ? (style.fg ?? "default") : style.bg;
  if (bg !== null) classes.push(`lab-ansi-bg-${bg === "default" ? "default" : colourName(bg)}`); // sets its text colour
  else if (fg !== null) classes.push(`lab-ansi-${colourName(fg)}`);
  if (style.bold) classes.push("lab-ansi-bold");
  if (style.italic) classes.push("lab-ansi-italic");
  if (style.underline) classes.push("lab-ansi-underline");
  if (style.strike) classes.push("lab-ansi-strike");
  return classes.join(" ");
}

const styleKey = (s) => `${s.fg},${s.bg},${+s.bold}${+s.italic}${+s.underline}${+s.strike}${+s.inverse}`;
// (style, SGR parameters) -> the next style, its key and classes: a coloured flood repeats a handful of sequences.
const SGR_CACHE = new Map();
const SGR_CACHE_SIZE = 1024;

// ---------- control characters ----------

/** How a control character is shown: {text: "⟨U+202E⟩", title: "…"}. */
export function controlToken(ch) {
  const code = ch.codePointAt(0);
  const hex = code.toString(16).toUpperCase().padStart(4, "0");
  const name = BIDI_NAMES[code];
  return {
    text: `⟨U+${hex}⟩`,
    title: name ? t("output.bidi_control", { name }) : t("output.control"),
  };
}

/** Whether `text` holds a character shown as a token. */
export function hasControl(text) {
  return HAS_CONTROL.test(text);
}

/** `text` split into plain parts (strings) and control characters ({control}), in order. */
export function splitControls(text) {
  const parts = [];
  let at = 0;
  for (const m of text.matchAll(CONTROL)) {
    if (m.index > at) parts.push(text.slice(at, m.index));
    parts.push({ control: m[0] });
    at = m.index + 1;
  }
  if (at < text.length) parts.push(text.slice(at));
  return parts;
}

// ---------- the screen ----------

function pushRun(runs, cls, text) {
  const last = runs[runs.length - 1];
  if (last && last.cls === cls) last.text += text;
  else runs.push({ cls, text });
}

/**
 * One run's output as a terminal screen. `write(stream, text)` returns what to change on the page:
 * {redraw, done, line}: when `redraw`, first remove the unfinished line already shown; then append `done` (runs of
 * ended lines, each ending in "\n") and `line` (runs of the unfinished line). A run is {cls, text}.
 */
export class Screen {
  constructor() {
    this.cells = []; // the unfinished line, one code point per cell
    this.classes = []; // the class of each cell
    this.cursor = 0;
    this.shown = 0; // cells of the line already on the page, unchanged since
    this.style = PLAIN;
    this.styleKey = styleKey(PLAIN);
    this.styleClass = "";
    this.carry = new Map(); // stream -> the start of an escape sequence that has not ended yet
  }

  write(stream, text) {
    const patch = { redraw: false, done: [], line: [] };
    this.patch = patch;
    const raw = stream === "notice"; // the lab's own words: no escapes, and never over the learner's output
    const base = STREAM_CLASS[stream] ?? "";
    if (raw) this.cursor = this.cells.length;
    const carried = this.carry.get(stream);
    if (carried) {
      text = carried + text;
      this.carry.delete(stream);
    }
    const classFor = () => (raw || !this.styleClass ? base : base ? `${base} ${this.styleClass}` : this.styleClass);
    let cls = classFor();
    let at = 0;
    while (at < text.length) {
      SPECIAL.lastIndex = at;
      const m = SPECIAL.exec(text);
      const end = m ? m.index : text.length;
      const ch = m ? m[0] : "";
      if (ch === "\n" && !this.cells.length && !this.cursor) {
        pushRun(patch.done, cls, text.slice(at, end + 1)); // a whole line: straight to the page
        at = end + 1;
        continue;
      }
      if (end > at) this._put(text.slice(at, end), cls);
      if (!m) break;
      at = end + 1;
      if (ch === "\n") this._newline(cls);
      else if (raw) this._put(ch, cls);
      else if (ch === "\r") this.cursor = 0;
      else if (ch === "\b") this.cursor = Math.max(this.cursor - 1, 0);
      else if (ch === ESC) {
        const length = this._escape(text, end);
        if (length === null) {
          this.carry.set(stream, text.slice(end)); // the rest of it comes in the next batch
          break;
        }
        if (length === 0) this._put(ch, cls); // not a sequence: show the ESC itself
        at = end + Math.max(length, 1);
        cls = classFor();
      } else this._put(ch, cls); // shown as a token
    }
    for (let i = this.shown; i < this.cells.length; ) i = this._run(patch.line, i);
    this.shown = this.cells.length;
    this.patch = null;
    return patch;
  }

  /** Put text at the cursor: appended at the line's end, or over what is there. */
  _put(text, cls) {
    const { cells, classes } = this;
    while (cells.length < this.cursor) {
      cells.push(" ");
      classes.push("");
    }
    if (this.cursor === cells.length) {
      for (const ch of text) {
        cells.push(ch);
        classes.push(cls);
      }
      this.cursor = cells.length;
      return;
    }
    for (const ch of text) {
      if (this.cursor < this.shown) this._changedShown();
      cells[this.cursor] = ch;
      classes[this.cursor] = cls;
      this.cursor += 1;
    }
  }

  /** A part of the line already on the page changed: the whole line is drawn again. */
  _changedShown() {
    this.patch.redraw = true;
    this.shown = 0;
  }

  _newline(cls) {
    const runs = this.patch.done;
    for (let i = this.shown; i < this.cells.length; ) i = this._run(runs, i);
    // The line break joins the line's last run: one node less per line (it has no glyph to colour).
    if (runs.length) runs[runs.length - 1].text += "\n";
    else pushRun(runs, cls, "\n");
    this.cells = [];
    this.classes = [];
    this.cursor = 0;
    this.shown = 0;
  }

  /** Append the run of same-class cells starting at i to runs; returns where the next run starts. */
  _run(runs, i) {
    const { cells, classes } = this;
    let j = i + 1;
    while (j < cells.length && classes[j] === classes[i]) j += 1;
    pushRun(runs, classes[i], cells.slice(i, j).join(""));
    return j;
  }

  /** Handle the escape sequence at text[at] (ESC): its length, 0 if it is not one, null if it ends later. */
  _escape(text, at) {
    if (at + 1 >= text.length) return null;
    const kind = text[at + 1];
    if (kind === "[") {
      let i = at + 2;
      while (i < text.length && i - at <= MAX_CSI) {
        const c = text.charCodeAt(i);
        if (c >= 0x40 && c <= 0x7e) {
          this._csi(text.slice(at + 2, i), text[i]);
          return i + 1 - at;
        }
        if (c < 0x20 || c > 0x3f) return 0; // not a parameter or intermediate byte
        i += 1;
      }
      return i - at > MAX_CSI ? 0 : null;
    }
    if (kind === "]" || kind === "P" || kind === "X" || kind === "^" || kind === "_") {
      // A string (title, link target…) up to BEL or ESC \: consumed, never shown.
      for (let i = at + 2; i < text.length && i - at <= MAX_STRING; i += 1) {
        if (text[i] === "\x07") return i + 1 - at;
        if (text[i] === ESC && text[i + 1] === "\\") return i + 2 - at;
        if (text[i] === ESC && i + 1 === text.length) return null;
      }
      return text.length - at > MAX_STRING ? 0 : null;
    }
    const c = kind.charCodeAt(0);
    if (c >= 0x20 && c <= 0x2f) {
      // ESC, intermediate bytes, one final byte (character set choices): consumed.
      let i = at + 1;
      while (i < text.length && text.charCodeAt(i) >= 0x20 && text.charCodeAt(i) <= 0x2f && i - at <= MAX_CSI) i += 1;
      if (i >= text.length) return i - at > MAX_CSI ? 0 : null;
      const f = text.charCodeAt(i);
      return f >= 0x30 && f <= 0x7e ? i + 1 - at : 0;
    }
    if (c >= 0x30 && c <= 0x7e) return 2; // a two-character escape (save cursor, reset…): consumed
    return 0;
  }

  /** A control sequence: SGR, erase in line and moves along the line act; the others are consumed. */
  _csi(params, final) {
    if (/^[<=>?]/.test(params)) return; // private modes (cursor visibility and the like)
    const n = Number(params.split(";")[0]) || 0;
    const limit = Math.max(this.cells.length, COLUMNS);
    if (final === "m") {
      const key = `${this.styleKey}|${params}`;
      let next = SGR_CACHE.get(key);
      if (!next) {
        const style = applySGR(this.style, params);
        next = { style, key: styleKey(style), cls: styleClasses(style) };
        if (SGR_CACHE.size < SGR_CACHE_SIZE) SGR_CACHE.set(key, next);
      }
      ({ style: this.style, key: this.styleKey, cls: this.styleClass } = next);
    } else if (final === "K") this._erase(n);
    else if (final === "C") this.cursor = Math.min(this.cursor + Math.max(n, 1), limit);
    else if (final === "D") this.cursor = Math.max(this.cursor - Math.max(n, 1), 0);
    else if (final === "G") this.cursor = Math.min(Math.max(n, 1) - 1, limit);
  }

  /** ESC [ K: 0 from the cursor to the end of the line, 1 from its start to the cursor, 2 the whole line. */
  _erase(mode) {
    const { cells, classes } = this;
    const cursor = Math.min(this.cursor, cells.length);
    if (mode === 0 || mode === 2) {
      if (cursor < this.shown) this._changedShown();
      cells.length = classes.length = cursor;
    }
    if (mode === 1 || mode === 2) {
      const upto = Math.min(this.cursor + (mode === 1 ? 1 : 0), cells.length);
      if (upto > 0 && this.shown > 0) this._changedShown();
      for (let i = 0; i < upto; i += 1) {
        cells[i] = " ";
        classes[i] = "";
      }
    }
  }
}
