// {widget} block: swaps in the table the build computed for the chosen value (no Python in the page). Each value's
// caption and rows are in a <template data-widget-state> of the widget; the default's are in the page already.

/** Start one widget: `island` is {default, options} (option keys in order), the rest is in the HTML. */
export function init(el, island) {
  const states = new Map([...el.querySelectorAll("template[data-widget-state]")].map((t) => [t.dataset.widgetState, t.content]));
  const caption = el.querySelector("[data-widget-caption]");
  const body = el.querySelector("[data-widget-rows]");
  let shown = island.default;

  const show = (key) => {
    const state = states.get(key);
    if (!state || key === shown) return;
    caption.replaceChildren(...state.querySelector("[data-widget-caption]").cloneNode(true).childNodes);
    const rows = [...state.querySelector("tbody").rows];
    if (rows.length === body.rows.length) rows.forEach((row, i) => updateRow(body.rows[i], row));
    else body.replaceChildren(...rows.map((row) => row.cloneNode(true)));
    shown = key;
  };

  const slider = el.querySelector("[data-widget-slider]");
  if (slider) {
    const output = el.querySelector("[data-widget-value]");
    const values = island.options.map((key) => [key, Number(key)]);
    const pick = () => {
      // The nearest option: the slider's own value may be written differently ("1" for 1.0).
      const value = Number(slider.value);
      const [key] = values.reduce((best, next) => (Math.abs(next[1] - value) < Math.abs(best[1] - value) ? next : best));
      output.textContent = key;
      slider.setAttribute("aria-valuetext", key);
      show(key);
    };
    slider.disabled = false; // off in the HTML: without JavaScript it could not change the table
    slider.addEventListener("input", pick);
    pick(); // a reload may restore another position
    return;
  }
  el.addEventListener("change", (event) => {
    if (event.target.matches("input[type=radio]")) show(event.target.value);
  });
  // A reload can restore a checked radio other than the default: show its table.
  const checked = el.querySelector("input[type=radio]:checked");
  if (checked) show(checked.value);
}

/** Copy one row's values into a shown row, keeping its elements (so a bar's width animates to its new value). */
function updateRow(target, source) {
  [...source.cells].forEach((cell, i) => {
    const into = target.cells[i];
    const fill = cell.querySelector(".fill");
    const intoFill = into && into.querySelector(".fill");
    if (fill && intoFill) {
      into.querySelector("[data-value]").textContent = cell.querySelector("[data-value]").textContent;
      intoFill.style.inlineSize = fill.style.inlineSize;
    } else if (into) {
      into.replaceWith(cell.cloneNode(true));
    }
  });
}
