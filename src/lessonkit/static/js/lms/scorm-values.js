// The value formats the page writes to an LMS: those of SCORM 2004 4th edition, narrowed to what every LMS we know
// of accepts (Moodle validates in the browser with regular expressions stricter than the standard's in places, and
// scorm-again with the standard's own). Limits come from scorm-limits.json, which the packager reads too.
import { t } from "../course/progress.js";
import limits from "./scorm-limits.json" with { type: "json" };

export { limits };

/** A timeinterval (second,10,2): "PT1H2M3.45S", at most two decimals of seconds (Moodle and scorm-again refuse more). */
export function duration(seconds) {
  let cs = Math.max(0, Math.round(seconds * 100));
  const h = Math.floor(cs / 360000);
  cs -= h * 360000;
  const m = Math.floor(cs / 6000);
  cs -= m * 6000;
  const s = (cs / 100).toFixed(2).replace(/\.?0+$/, "");
  return `PT${h ? `${h}H` : ""}${m ? `${m}M` : ""}${cs || (!h && !m) ? `${s}S` : ""}`;
}

/** A time (second,10,0) in UTC with exactly two decimals: "2026-12-01T10:15:00.12Z" (no fraction, or three, is refused). */
export function timestamp(date = new Date()) {
  return date.toISOString().replace(/(\.\d{2})\d(Z)$/, "$1$2");
}

/** A real (10,7) in fixed point, at most 4 decimals, never exponent notation ("6.6e-1" is refused). */
export function decimal(x) {
  return x.toFixed(4).replace(/\.?0+$/, "") || "0";
}

/**
 * Free text for an `other` interaction's learner_response (characterstring, at most limits.learnerResponse
 * characters): longer text is cut, and says so in the page's language.
 */
export function longText(text) {
  const most = limits.learnerResponse;
  if (text.length <= most) return text;
  const note = t("lms.cut_note");
  let end = most - note.length;
  if (/[\udc00-\udfff]/.test(text[end])) end -= 1; // not between the two halves of a character
  return text.slice(0, end) + note;
}
