// The lab protocol's check family (protocol.js): `check` asks the worker to run an exercise's code and then its
// checks, `report` (CheckReport) ends it. Each is the fields besides `type`.

import { arrayOf, boolean, count, expect, nullable, oneOf, recordOf, requestId, shape, string } from "./protocol-fields.js";
import { labkitSaid, runError } from "./protocol-run.js";

/**
 * @typedef {object} Check               one of an exercise's checks (the build verified them)
 * @property {string} name
 * @property {string} code                 Python, run against the learner's objects; fails by assert
 * @property {boolean} secret              reported by name with a generic message
 *
 * @typedef {object} CheckMessage
 * @property {"check"} type
 * @property {number} id
 * @property {string} code                 the learner's code
 * @property {string} filename             the name learner tracebacks show
 * @property {Check[]} checks
 * @property {Object<string, string>} modules  sources of the lesson's lab files the checks import, by module name
 * @property {number} timeout              seconds the learner's code, and each check, may run
 *
 * @typedef {object} CheckResult           one check's outcome (lab/labkit/_check.py)
 * @property {string} name
 * @property {boolean} secret
 * @property {"passed"|"failed"|"error"|"timeout"|"skipped"} status
 * @property {string} message              why it did not pass, in the author's or Python's words (an assertion's
 *                                         own message, what the check raised); "" with `said`, or when it passed
 * @property {Said|null} said              why, in labkit's words by key ("check.expected" {expected: "6",
 *                                         actual: "4"}: labkit/_words.py SAID), for the page to word
 * @property {string} traceback            the learner's frames, when their code raised in the check
 *
 * @typedef {object} ReportMessage         CheckReport: what Check shows
 * @property {"report"} type
 * @property {number} id
 * @property {number} ms                   the check run's time in the worker
 * @property {boolean} ok                  every check passed
 * @property {number} passed
 * @property {number} total
 * @property {RunError|null} error         the learner's code itself failed (the checks were skipped)
 * @property {CheckResult[]} checks
 * @property {string} output               what the learner's code printed, apart from the report
 * @property {boolean} truncated           output went past the limit
 */

export const checkFields = {
  id: requestId,
  code: string,
  filename: string,
  checks: arrayOf(shape({ name: string, code: string, secret: boolean }), { least: 1 }),
  modules: recordOf(string),
  timeout: expect((v) => Number.isFinite(v) && v > 0, "a number of seconds > 0"),
};

export const reportFields = {
  id: requestId,
  ms: count,
  ok: boolean,
  passed: count,
  total: count,
  error: nullable(runError),
  checks: arrayOf(shape({
    name: string,
    secret: boolean,
    status: oneOf("passed", "failed", "error", "timeout", "skipped"),
    message: string,
    said: nullable(labkitSaid),
    traceback: string,
  })),
  output: string,
  truncated: boolean,
};
