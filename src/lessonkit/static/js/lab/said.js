// What the lab's worker and labkit report by message key (protocol.js `Said`: worker-said.json's keys, labkit's
// labkit/_words.py SAID), worded from the page's catalog: numbers among the values as the page's language writes
// them, text (a value as Python writes it, an exception's own message) as it is.

import { num, t } from "../page/words.js";

/** The words of a said ({key, values}) in the page's language. */
export function say(said) {
  const values = Object.fromEntries(Object.entries(said.values).map(([name, value]) => [name,
    typeof value === "number" ? num(value) : value]));
  return t(said.key, values);
}
