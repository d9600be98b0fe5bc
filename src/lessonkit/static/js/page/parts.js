// The stylesheet lets parts below the first screen skip layout (content-visibility: auto), so the first screen
// paints sooner. Until a part has been laid out once its height is an estimate, and a jump to an element inside it
// by script or assistive technology can land off target. So after the first paint every part is laid out once,
// top to bottom, in idle time and one part per frame (each its own short layout); then the page is laid out in full.

import { idle } from "./idle.js";

const soon = (fn) => idle(1000).then(fn);

/** Lay out each `.part` under root once, after the first paint: one per frame, in idle time. */
export function init(root = document) {
  const parts = [...root.querySelectorAll(".part")];
  const next = () => {
    const part = parts.shift();
    if (!part) return;
    part.classList.add("part-shown");
    // One part per frame: an idle period can hold several callbacks before the frame that lays the first one out.
    requestAnimationFrame(() => soon(next));
  };
  // After the first frame: requestAnimationFrame runs before it paints, the timeout after it.
  requestAnimationFrame(() => setTimeout(() => soon(next), 0));
}
