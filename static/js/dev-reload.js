// Dev server only (injected by `build.py serve`, never linked from built pages): reload after a good
// rebuild, show the build problems in a banner after a bad one. The server decides; this only displays.

const EVENTS = "/__lessonkit/events";
const BANNER_ID = "lessonkit-dev-banner";
const pageEpoch = Number(new URL(import.meta.url).searchParams.get("epoch"));

function removeBanner() {
  document.getElementById(BANNER_ID)?.remove();
}

function showProblems(problems) {
  removeBanner();
  if (!problems.length) return;
  const banner = document.createElement("div");
  banner.id = BANNER_ID;
  banner.setAttribute("role", "alert");
  // CSSOM assignments are not inline-style attributes, so they stay within the page's CSP.
  Object.assign(banner.style, {
    position: "fixed", left: "0", right: "0", bottom: "0", zIndex: "2147483647",
    maxHeight: "50vh", overflow: "auto", margin: "0", padding: "0.75rem 1rem",
    background: "#5c0011", color: "#ffffff", font: "14px/1.4 system-ui, sans-serif",
    borderTop: "3px solid #ff4d4f",
  });

  const title = document.createElement("strong");
  title.textContent = `Build failed (${problems.length} problem${problems.length === 1 ? "" : "s"}) — `
    + "showing the last good build. Fix the files and save; this page reloads by itself.";
  banner.append(title);

  const list = document.createElement("ul");
  list.style.margin = "0.5rem 0 0";
  list.style.paddingLeft = "1.25rem";
  for (const problem of problems) {
    const item = document.createElement("li");
    const code = document.createElement("code");
    code.style.whiteSpace = "pre-wrap";
    code.style.color = "inherit";
    code.textContent = String(problem);
    item.append(code);
    list.append(item);
  }
  banner.append(list);

  const close = document.createElement("button");
  close.type = "button";
  close.textContent = "Dismiss";
  close.style.marginTop = "0.5rem";
  close.addEventListener("click", removeBanner);
  banner.append(close);

  document.body.append(banner);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function listen() {
  let seq = null; // unknown: the first answer comes at once, so a page opened during a failure shows it
  let delay = 0;
  for (;;) {
    const query = new URLSearchParams({ epoch: String(pageEpoch) });
    if (seq !== null) query.set("seq", String(seq));
    try {
      const response = await fetch(`${EVENTS}?${query}`, { cache: "no-store" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const event = await response.json();
      if (event.epoch !== pageEpoch) {
        location.reload();
        return;
      }
      seq = event.seq;
      showProblems(Array.isArray(event.problems) ? event.problems : []);
      delay = 0;
    } catch {
      // Server restarting or stopped: retry quietly with backoff; a new server has a new epoch → reload.
      delay = Math.min(delay ? delay * 2 : 500, 5000);
      await sleep(delay);
    }
  }
}

listen();
