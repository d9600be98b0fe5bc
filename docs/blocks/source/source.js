// {source}: a Copy button beside the shown text's name, for an author who wants these lines in their own lesson.
// The page reads the same without it (the text is in the HTML); the button only copies what the figure shows.

/** Start one block: `element` is its <figure>; `island` its JSON island ({lesson, id, version}). */
export function init(element) {
  const text = element.querySelector("pre").textContent;
  const status = element.querySelector("[data-source-status]");
  const button = document.createElement("button");
  button.type = "button";
  button.className = "secondary source-copy";
  button.textContent = "Copy";
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = "Copied.";
    } catch {
      status.textContent = "This browser did not let the page copy: select the text instead.";
    }
  });
  element.querySelector("figcaption").append(" ", button);
}
