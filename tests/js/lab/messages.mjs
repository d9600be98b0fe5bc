// messageProblem (static/js/lab/protocol.js) over a list of [receiver, message] cases, with the objects JSON cannot
// carry made real: a message's `port` / `interruptBuffer` / `snapshot` / `wasm` / `heap` given as true becomes a
// MessagePort / SharedArrayBuffer / Blob / WebAssembly.Module / Uint8Array. protocol.test.mjs imports it; run as a
// program (node messages.mjs, the cases' JSON on stdin) it prints the answers' JSON, for the tests that take their
// messages from Python (tests/test_lab_protocol.py).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { messageProblem } from "../../../static/js/lab/protocol.js";

const WASM_HEADER = [0, 97, 115, 109, 1, 0, 0, 0];

/** messageProblem(message, receiver) for each [receiver, message] case. */
export function problems(cases) {
  const channels = [];
  try {
    return cases.map(([receiver, given]) => {
      const message = given !== null && typeof given === "object" && !Array.isArray(given) ? { ...given } : given;
      if (message?.port === true) {
        const channel = new MessageChannel();
        channels.push(channel);
        message.port = channel.port1;
      }
      if (message?.interruptBuffer === true) message.interruptBuffer = new SharedArrayBuffer(1);
      if (message?.snapshot === true) message.snapshot = new Blob([new Uint8Array(8)]);
      if (message?.wasm === true) message.wasm = new WebAssembly.Module(new Uint8Array(WASM_HEADER));
      if (message?.heap === true) message.heap = new Blob([new Uint8Array(8)]);
      return messageProblem(message, receiver);
    });
  } finally {
    for (const channel of channels) {  // an open port would keep Node running
      channel.port1.close();
      channel.port2.close();
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(problems(JSON.parse(readFileSync(0, "utf-8")))));
}
