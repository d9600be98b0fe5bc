// A QR code of a share link, drawn here (qrcode-generator, vendored and pinned: vendor-manifest.json), so a class can
// open the link from the projector with their phones' cameras: no service sees the link or its code.

import qrcode from "qrcode-generator";

const SVG = "http://www.w3.org/2000/svg";
const QUIET = 4; // modules of light margin around the code, as the standard asks

/** An <svg role="img"> of `text` as a QR code (level M, the smallest version that holds it), named `name`. */
export function qrSvg(text, name) {
  const qr = qrcode(0, "M");
  qr.addData(text, "Byte");
  qr.make();
  const n = qr.getModuleCount();
  const size = n + 2 * QUIET;
  let d = "";
  for (let r = 0; r < n; r += 1) {
    for (let c = 0; c < n; c += 1) if (qr.isDark(r, c)) d += `M${c + QUIET} ${r + QUIET}h1v1h-1z`;
  }
  const root = document.createElementNS(SVG, "svg");
  for (const [k, v] of Object.entries({ viewBox: `0 0 ${size} ${size}`, class: "instr-qr", role: "img", "aria-label": name,
    "shape-rendering": "crispEdges" })) root.setAttribute(k, v);
  const ground = document.createElementNS(SVG, "rect");
  ground.setAttribute("width", String(size));
  ground.setAttribute("height", String(size));
  ground.setAttribute("fill", "#ffffff"); // dark on light whatever the theme: a camera reads that
  const modules = document.createElementNS(SVG, "path");
  modules.setAttribute("d", d);
  modules.setAttribute("fill", "#000000");
  root.append(ground, modules);
  root.dataset.modules = String(n);
  return root;
}
