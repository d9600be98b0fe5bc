// Head-dimension widget: swaps in the rows the build computed with the lab's own softmax.
export function init(root) {
  for (const el of root.querySelectorAll("[data-headdim]")) enhance(el);
}

function enhance(el) {
  const config = JSON.parse(el.querySelector("[data-headdim-config]").textContent);
  const caption = el.querySelector("[data-caption]");
  const rows = [...el.querySelector("[data-rows]").rows];
  const update = (value) => {
    const state = config.states[value];
    if (!state) return;
    caption.textContent = state.caption;
    state.rows.forEach((row, i) => {
      const tr = rows[i];
      tr.querySelector("[data-scaled]").textContent = row.scaled;
      tr.querySelector("[data-prob]").textContent = row.prob;
      tr.querySelector(".fill").style.inlineSize = `${row.width}%`;
    });
  };
  el.addEventListener("change", (event) => update(event.target.value));
  // A reload can restore a checked radio other than the default: show its numbers.
  const checked = el.querySelector("input:checked");
  if (checked && checked.value !== config.default) update(checked.value);
}
