// The lab protocol's run family (protocol.js): `run` asks the worker to run learner code, `stdout` and `stderr`
// carry what it prints, `result` ends it (its charts: protocol-charts.js). Each is the fields besides `type`.

import { LABKIT } from "../generated/labkit.js";
import { chart } from "./protocol-charts.js";
import { arrayOf, boolean, count, expect, lineNumber, nullable, optional, requestId, said, shape, string } from "./protocol-fields.js";

/**
 * @typedef {object} RunMessage
 * @property {"run"} type
 * @property {number} id
 * @property {string} code
 * @property {string} filename            the name learner tracebacks show
 *
 * @typedef {object} OutputMessage
 * @property {"stdout"|"stderr"} type
 * @property {number} id
 * @property {string} text
 *
 * @typedef {object} RunError
 * @property {string} type                the exception's class name ("SyntaxError", "KeyboardInterrupt", …): a Python
 *                                        identifier of at most LABKIT.errorName characters (labkit._report.shown_name)
 * @property {string} message             one line: Python's own words ("" with `said`)
 * @property {number|null} line           line in the learner's file, when known
 * @property {string} [traceback]         the learner's frames only
 * @property {Said} [said]                what labkit says of it instead, by key (labkit/_words.py SAID: a check
 *                                        run's code that took too long)
 *
 * @typedef {object} ResultMessage
 * @property {"result"} type
 * @property {number} id
 * @property {boolean} ok
 * @property {number} ms                  the run's time in the worker
 * @property {RunError|null} error
 * @property {(Chart|HeatmapChart|LinesChart)[]} charts  what the run drew, in order (at most limits.charts)
 * @property {boolean} truncated          output went past the limit
 * @property {boolean} stopped            ended by Stop
 */

export const runFields = { id: requestId, code: string, filename: string };

export const outputFields = { id: requestId, text: string };

// A Python identifier, as str.isidentifier() has it: letters (and "_") first, then letters, digits and joiners.
const PYTHON_NAME = /^[\p{XID_Start}_]\p{XID_Continue}*$/u;

/**
 * The class name the status line shows: labkit sends a short identifier (shown_name), and the page takes nothing
 * else, so an exception named like a sentence can never read as the page's own words.
 */
export const errorName = expect((v) => typeof v === "string" && [...v].length <= LABKIT.errorName && PYTHON_NAME.test(v),
  `a Python identifier of at most ${LABKIT.errorName} characters`);

/** What labkit reports by key (labkit/_words.py SAID, in generated/labkit.js). */
export const labkitSaid = said(LABKIT.said);

export const runError = shape({ type: errorName, message: string, line: nullable(lineNumber), traceback: optional(string),
  said: optional(labkitSaid) });

export const resultFields = {
  id: requestId,
  ok: boolean,
  ms: count,
  error: nullable(runError),
  charts: arrayOf(chart),
  truncated: boolean,
  stopped: boolean,
};
