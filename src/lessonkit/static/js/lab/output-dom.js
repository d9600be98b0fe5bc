/**
 * A run's output on the page: the terminal screen of output.js applied to an output <pre>, always as text
 * (textContent, never HTML). Ended lines are appended once and never touched again; only the nodes of the unfinished
 * last line are replaced, and only when the screen says a part of it already shown changed.
 *
 * `writeOutput(pre, stream, text)` appends a batch, `clearOutput(pre)` starts over for a new run, and
 * `outputWriter(pre)` batches the writes of a frame.
 */

import { Screen, controlToken, hasControl, splitControls } from "./output.js";

const screens = new WeakMap(); // output <pre> -> {screen, live: the nodes showing its unfinished line}

function textNode(cls, text) {
  if (!cls) return document.createTextNode(text);
  const span = document.createElement("span");
  span.className = cls;
  span.textContent = text;
  return span;
}

/** Append runs to `parent` (spans with textContent, tokens for control characters); returns the nodes added. */
function appendRuns(parent, runs) {
  const nodes = [];
  for (const { cls, text } of runs) {
    if (!hasControl(text)) {
      nodes.push(textNode(cls, text));
      continue;
    }
    for (const part of splitControls(text)) {
      if (typeof part === "string") {
        nodes.push(textNode(cls, part));
        continue;
      }
      const { text: label, title } = controlToken(part.control);
      const span = textNode(cls ? `${cls} lab-control` : "lab-control", label);
      span.title = title;
      nodes.push(span);
    }
  }
  const fragment = document.createDocumentFragment();
  for (const node of nodes) fragment.appendChild(node);
  parent.appendChild(fragment);
  return nodes;
}

/** Append a batch of one stream's output to `pre`, as a terminal would show it. */
export function writeOutput(pre, stream, text) {
  let state = screens.get(pre);
  if (!state) {
    state = { screen: new Screen(), live: [] };
    screens.set(pre, state);
  }
  const { redraw, done, line } = state.screen.write(stream, String(text));
  if (redraw) {
    for (const node of state.live) node.remove();
    state.live = [];
  }
  if (done.length) {
    appendRuns(pre, done);
    state.live = []; // the line they showed has ended: those nodes stay as they are
  }
  for (const node of appendRuns(pre, line)) state.live.push(node);
}

/** Empty `pre` for a new run: a fresh screen (cursor, colours and unfinished escapes start over). */
export function clearOutput(pre) {
  pre.replaceChildren();
  screens.delete(pre);
}

/**
 * A writer for `pre` that gathers what arrives during a frame and writes it in the next one: a flood of small
 * messages becomes one write per stream change a frame. write(stream, text); flush() writes what is left now.
 */
export function outputWriter(pre) {
  let pending = [];
  let frame = 0;
  const flush = () => {
    cancelAnimationFrame(frame);
    frame = 0;
    const batch = pending;
    pending = [];
    for (const [stream, text] of batch) writeOutput(pre, stream, text);
  };
  return {
    write(stream, text) {
      const last = pending[pending.length - 1];
      if (last && last[0] === stream) last[1] += text;
      else pending.push([stream, text]);
      if (!frame) frame = requestAnimationFrame(flush);
    },
    flush,
  };
}
