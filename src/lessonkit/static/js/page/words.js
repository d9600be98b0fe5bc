// The page's words and numbers for the modules loaded after main.js (the lab, the exercise, the course index, the
// LMS): main.js's one copy of i18n.js, which it puts on globalThis.lessonkitWords before anything else runs, so
// these bundles share no chunk with main.js (a unit under Node gets it from tests/modules.py's english.mjs).
const words = () => globalThis.lessonkitWords;

/** The message of `key`, its placeholders filled from `params` (i18n.js). */
export const t = (key, params) => words().t(key, params);
/** The counted message of `key` for `n` (i18n.js). */
export const tn = (key, n, params) => words().tn(key, n, params);
/** A number as the page's language writes it (i18n.js). */
export const num = (value, digits, options) => words().num(value, digits, options);
/** A percentage as the page's language writes it (i18n.js). */
export const pct = (value, digits, options) => words().pct(value, digits, options);
/** The signs the page's language writes numbers with (i18n.js). */
export const signs = () => words().signs();
/** The page's language (i18n.js). */
export const language = () => words().language();
