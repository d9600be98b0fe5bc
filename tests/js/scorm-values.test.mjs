// The value formats the page writes to an LMS (static/js/lms/scorm-values.js), against the patterns Moodle's SCORM
// 2004 runtime checks them with (mod/scorm/datamodels/scorm_13.js: stricter than the standard in places).
import assert from "node:assert/strict";
import { test } from "node:test";

import { decimal, duration, limits, longText, timestamp } from "../../static/js/lms/scorm-values.js";

const MOODLE = {
  time: /^(19[7-9]{1}[0-9]{1}|20[0-2]{1}[0-9]{1}|203[0-8]{1})((-(0[1-9]{1}|1[0-2]{1}))((-(0[1-9]{1}|[1-2]{1}[0-9]{1}|3[0-1]{1}))(T([0-1]{1}[0-9]{1}|2[0-3]{1})((:[0-5]{1}[0-9]{1})((:[0-5]{1}[0-9]{1})((\.[0-9]{1,2})((Z|([+|-]([0-1]{1}[0-9]{1}|2[0-3]{1})))(:[0-5]{1}[0-9]{1})?)?)?)?)?)?)?)?$/,
  timespan: /^P(\d+Y)?(\d+M)?(\d+D)?(T(((\d+H)(\d+M)?(\d+(\.\d{1,2})?S)?)|((\d+M)(\d+(\.\d{1,2})?S)?)|((\d+(\.\d{1,2})?S))))?$/,
  decimal: /^-?([0-9]{1,5})(\.[0-9]{1,18})?$/,
};

test("session times: at most two decimals of seconds, hours and minutes when there are some", () => {
  assert.equal(duration(2.984), "PT2.98S");
  assert.equal(duration(0), "PT0S");
  assert.equal(duration(60), "PT1M");
  assert.equal(duration(3725.456), "PT1H2M5.46S");
  assert.equal(duration(7200), "PT2H");
  assert.equal(duration(-1), "PT0S");
  for (const s of [0, 0.004, 1.255, 59.999, 61, 3599.99, 86400.5]) assert.match(duration(s), MOODLE.timespan, String(s));
});

test("timestamps: UTC with exactly two decimals (no fraction, or three, is refused)", () => {
  assert.equal(timestamp(new Date(Date.UTC(2026, 11, 1, 10, 15, 0, 123))), "2026-12-01T10:15:00.12Z");
  assert.equal(timestamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 0))), "2026-01-02T03:04:05.00Z");
  assert.match(timestamp(), MOODLE.time);
});

test("decimals in fixed point, never exponent notation", () => {
  assert.deepEqual([decimal(2 / 3), decimal(1), decimal(0), decimal(0.8), decimal(1e-7), decimal(4)], ["0.6667", "1", "0", "0.8", "0", "4"]);
  for (const x of [0, 1, 0.5, 1e-9, 0.99999, 250]) assert.match(decimal(x), MOODLE.decimal);
});

test("long answers are cut within the limit, and say so, never between the halves of a character", () => {
  assert.equal(longText("short\nanswer"), "short\nanswer");
  const cut = longText("a".repeat(limits.learnerResponse + 10));
  assert.equal(cut.length, limits.learnerResponse);
  assert.match(cut, /cut here: the whole text is in the lesson's saved state\)$/);
  const emoji = longText("😀".repeat(limits.learnerResponse));
  assert.ok(emoji.length <= limits.learnerResponse);
  assert.doesNotMatch(emoji, /[\ud800-\udbff](?![\udc00-\udfff])/, "no lone high surrogate");
});
