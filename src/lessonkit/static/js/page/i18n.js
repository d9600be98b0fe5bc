// The page's words and numbers in the course's language. The words are the build's: its catalogs
// (lessonkit/locale/<lang>/LC_MESSAGES/lessonkit.po, read by lessonkit.core.messages) give every page the messages in
// its language, with the course's own `strings:`, in the page's #lesson-messages island — key → text, or for a
// counted message key → { CLDR plural category: text }, the category Intl.PluralRules picks here. Nothing here holds
// a word of its own. Numbers: Intl.NumberFormat with the build's rules (lessonkit.core.messages.format_decimal and
// format_percent), so a value reads the same in the page as in what the build wrote.

let state = null;

function loaded() {
  if (state) return state;
  const island = document.getElementById("lesson-messages");
  use(island ? JSON.parse(island.textContent) : {}, document.documentElement.lang || "en");
  return state;
}

/** Use these messages and this language (the page reads its island; a unit test hands them in). */
export function use(messages, lang = "en") {
  state = { messages, lang, plurals: new Intl.PluralRules(lang), numbers: new Map() };
}

/** The page's language (its <html lang>). */
export const language = () => loaded().lang;

/** `{name}` placeholders filled from params (a name not given stays as written). */
const fill = (text, params = {}) => text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));

/** The message of `key`, its placeholders filled from `params`. */
export function t(key, params) {
  const found = loaded().messages[key];
  if (typeof found === "string") return fill(found, params);
  if (found && typeof found === "object") return tn(key, params && "n" in params ? params.n : 0, params);
  console.error(`lessonkit: no message "${key}"`);
  return key;
}

/** The counted message of `key` for `n`: the form of n's plural category, `{n}` the number as the language writes it. */
export function tn(key, n, params = {}) {
  const s = loaded();
  const forms = s.messages[key];
  if (typeof forms === "string") return fill(forms, { ...params, n: num(n) });
  if (!forms) {
    console.error(`lessonkit: no message "${key}"`);
    return key;
  }
  const text = forms[s.plurals.select(n)] ?? forms.other;
  return fill(text, { ...params, n: num(n) });
}

function formatter(style, digits, grouping) {
  const s = loaded();
  const name = `${style}:${digits}:${grouping}`;
  let made = s.numbers.get(name);
  if (!made) {
    const fraction = digits === null || digits === undefined
      ? { minimumFractionDigits: 0, maximumFractionDigits: 6 }
      : { minimumFractionDigits: digits, maximumFractionDigits: digits };
    made = new Intl.NumberFormat(s.lang, { ...fraction, useGrouping: grouping, ...(style === "percent" ? { style: "percent" } : {}) });
    s.numbers.set(name, made);
  }
  return made;
}

/**
 * A number as the page's language writes it: `digits` decimals, or (none given) as many as it has, up to 6; with
 * `{ grouping: false }`, without thousands separators (as a widget's table writes its cells).
 */
export const num = (value, digits = null, { grouping = true } = {}) => formatter("decimal", digits, grouping).format(value);

/** The signs the page's language writes a decimal number with ({decimal: ",", group: "."} in German). */
export function signs() {
  const parts = formatter("decimal", 1, true).formatToParts(12345.6);
  const part = (type, fallback) => (parts.find((p) => p.type === type) || { value: fallback }).value;
  return { decimal: part("decimal", "."), group: part("group", ",") };
}

/** A fraction as the page's language writes a percentage (0.665, 1 → "66,5 %" in German). */
export const pct = (value, digits = 0, { grouping = true } = {}) => formatter("percent", digits, grouping).format(value);
