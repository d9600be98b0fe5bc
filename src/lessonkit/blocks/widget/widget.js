// {widget} block: swaps in the table the build computed for the chosen values (no Python in the page). Each
// combination's caption, rows and shading legend are in a <template data-widget-state="key"> of the widget (the key:
// each parameter's option, comma-separated), with its header row when the tables' columns differ (a mask over n
// tokens is n × n); the default's are in the page already. Each control is an element with data-widget-param (its
// parameter's position): radio buttons, a select or a slider.

/**
 * Start one widget: `island` is {default, options} (every combination's key, in order) and, for several parameters,
 * `parameters` (each one's option keys in order); the rest is in the HTML.
 */
export function init(el, island) {
  const states = new Map([...el.querySelectorAll("template[data-widget-state]")].map((t) => [t.dataset.widgetState, t.content]));
  const caption = el.querySelector("[data-widget-caption]");
  const body = el.querySelector("[data-widget-rows]");
  const head = el.querySelector("[data-widget-head]");
  const legend = el.querySelector(":scope > [data-widget-legend]");
  const parameters = island.parameters || [island.options];
  const chosen = parameters.length > 1 ? String(island.default).split(",") : [String(island.default)];
  let shown = island.default;

  const show = (key) => {
    const state = states.get(key);
    if (!state || key === shown) return;
    caption.replaceChildren(...state.querySelector("[data-widget-caption]").cloneNode(true).childNodes);
    const header = state.querySelector("thead");
    if (header && head) head.replaceChildren(...[...header.rows].map((row) => row.cloneNode(true)));
    const rows = [...state.querySelector("tbody").rows];
    // Same shape: each row's values copied into the row shown (a bar's width animates); else the rows replaced.
    const same = rows.length === body.rows.length && rows.every((row, i) => row.cells.length === body.rows[i].cells.length);
    if (same) rows.forEach((row, i) => updateRow(body.rows[i], row));
    else body.replaceChildren(...rows.map((row) => row.cloneNode(true)));
    const scale = state.querySelector("[data-widget-legend]");
    if (legend && scale) legend.replaceChildren(...scale.cloneNode(true).childNodes);
    shown = key;
  };
  const choose = (index, key) => {
    chosen[index] = key;
    show(chosen.join(","));
  };

  for (const control of el.querySelectorAll("[data-widget-param]")) {
    const index = Number(control.dataset.widgetParam);
    const options = parameters[index] || [];
    const slider = control.querySelector("[data-widget-slider]");
    const select = control.querySelector("select");
    if (slider) {
      const output = control.querySelector("[data-widget-value]");
      const values = options.map((key) => [key, Number(key)]);
      const pick = () => {
        // The nearest option: the slider's own value may be written differently ("1" for 1.0).
        const value = Number(slider.value);
        const [key] = values.reduce((best, next) => (Math.abs(next[1] - value) < Math.abs(best[1] - value) ? next : best));
        output.textContent = key;
        slider.setAttribute("aria-valuetext", key);
        choose(index, key);
      };
      slider.disabled = false; // off in the HTML: without JavaScript it could not change the table
      slider.addEventListener("input", pick);
      pick(); // a reload may restore another position
    } else if (select) {
      select.addEventListener("change", () => choose(index, select.value));
      choose(index, select.value); // a reload can restore another choice
    } else {
      control.addEventListener("change", (event) => {
        if (event.target.matches("input[type=radio]")) choose(index, event.target.value);
      });
      // A reload can restore a checked radio other than the default: show its table.
      const checked = control.querySelector("input[type=radio]:checked");
      if (checked) choose(index, checked.value);
    }
  }
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
