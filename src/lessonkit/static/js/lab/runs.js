// The lab's runs, apart from the DOM: a run's record, and the words the view shows for it (the status line, the
// panel's label, the note after a restart). The view (view.js) keeps the state machine; these decide what it says.

import { num, t } from "../page/words.js";
import { chartProblem } from "./protocol.js";
import { say } from "./said.js";

export const MAX_RUNS = 50; // run records a lab keeps (controller.runs)

/** What an error says: "NameError: …" (Python's words), or labkit's, by key. */
export function errorText(error) {
  return error.said ? say(error.said) : `${error.type}: ${error.message}`;
}

/** The status line for a run's error: "Error on line 3: NameError: …". */
export function errorSummary(error) {
  if (!error) return "";
  if (error.type === "SystemExit") return t("lab.exited", { status: error.message });
  const what = errorText(error);
  return error.line ? t("lab.error_on_line", { line: num(error.line), error: what }) : t("lab.error", { error: what });
}

/** The charts of an island or a result that chart.js can draw (a malformed one is our bug: logged, skipped). */
export function drawable(charts) {
  return (Array.isArray(charts) ? charts : []).filter((chart) => {
    const problem = chartProblem(chart);
    if (problem) console.error(`lab: a chart that cannot be drawn${problem}`);
    return !problem;
  });
}

/** A run's record as it starts (see the controller API in view.js). */
export function newRecord(runId, code) {
  return { runId, code, stdout: "", output: [], ok: null, error: null, charts: [], ms: null, truncated: false,
    stopped: false };
}

/** Output of the run, kept in its record: one entry per change of stream. */
export function recordOutput(record, stream, text) {
  const last = record.output[record.output.length - 1];
  if (last && last.stream === stream) last.text += text;
  else record.output.push({ stream, text });
  if (stream === "stdout") record.stdout += text;
}

/** The record of a run that ended with `result` (the client's: a result message, or one the page made). */
export function settle(record, result) {
  record.ok = Boolean(result.ok);
  record.error = result.error || null;
  record.charts = drawable(result.charts);
  record.ms = typeof result.ms === "number" ? result.ms : null;
  record.truncated = Boolean(result.truncated);
  record.stopped = Boolean(result.stopped);
  return record;
}

/**
 * What the lab says when the page ended a run's Python before its result (result.restarted): a hard Stop, a crash,
 * output past the caps. The client words the error for the learner (a crash says "Python crashed: …").
 */
export function restartNote(result) {
  if (result.stopped) return t("lab.stopped_restarted");
  return t("lab.restarted", { error: result.error.message });
}

/** The current panel's label once the run ended. */
export function runLabel(record) {
  return record.ok ? t("lab.this_run") : record.stopped ? t("lab.this_run_stopped") : t("lab.this_run_error");
}

/** The status line once the run ended (`note`: the restart note, when there was one). */
export function finishStatus(record, note) {
  let text;
  if (note) text = note;
  else if (record.stopped) text = t("lab.stopped");
  else if (record.ok) text = t("lab.finished", { ms: num(record.ms) });
  else text = errorSummary(record.error);
  if (record.truncated) text += t("lab.cut");
  return text;
}

/** The status line of a failed run that left the last good output shown (Live mode). */
export function keptStatus(record) {
  return t("lab.kept", { error: errorSummary(record.error) });
}

/** Why Run cannot be pressed in a state ("" when it can). */
export function reasonFor(state, restarting) {
  if (state === "loading") return restarting ? t("lab.restarting") : t("lab.loading");
  if (state === "failed") return t("lab.load_failed");
  return "";
}
