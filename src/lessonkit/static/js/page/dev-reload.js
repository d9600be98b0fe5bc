// Dev server only (injected by `lessonkit serve`, never linked from built pages): reload after a good
// rebuild, show the build problems in a banner after a bad one. The server decides; this only displays.

const EVENTS = "/__lessonkit/events";
const BANNER_ID = "lessonkit-dev-banner";
const pageEpoch = Number(new URL(import.meta.url).searchParams.get("epoch"));

function removeBanner() {
  document.getElementById(BANNER_ID)?.remove();
}

// The banner's look, set on its own elements (CSSOM assignments are not inline-style attributes, so they stay within
// the page's CSP). It lives in a shadow root: the page's stylesheet (which gives code a light background, styles
// lists and buttons) never reaches it, so it reads the same over any page, in light and dark mode.
const LOOK = {
  banner: {
    position: "fixed", left: "0", right: "0", bottom: "0", zIndex: "2147483647", display: "block",
    maxHeight: "50vh", overflow: "auto", margin: "0", padding: "0.75rem 1rem", boxSizing: "border-box",
    background: "#5c0011", color: "#ffffff", font: "14px/1.4 system-ui, sans-serif", textAlign: "left",
    borderTop: "3px solid #ff4d4f", colorScheme: "dark",
  },
  list: { margin: "0.5rem 0 0", paddingLeft: "1.25rem" },
  code: { whiteSpace: "pre-wrap", color: "inherit", background: "transparent", font: "13px/1.4 ui-monospace, monospace" },
  button: {
    marginTop: "0.5rem", padding: "0.25rem 0.75rem", font: "inherit", color: "#5c0011", background: "#ffffff",
    border: "2px solid #ffffff", borderRadius: "4px", cursor: "pointer", outlineColor: "#ffffff", outlineOffset: "2px",
  },
};

function styled(tag, look, text) {
  const el = document.createElement(tag);
  Object.assign(el.style, look);
  if (text !== undefined) el.textContent = text;
  return el;
}

function showProblems(problems) {
  removeBanner();
  if (!problems.length) return;
  const host = document.createElement("div");
  host.id = BANNER_ID;
  host.setAttribute("role", "alert");
  Object.assign(host.style, LOOK.banner);
  const root = host.attachShadow({ mode: "open" });

  const title = styled("strong", {}, `Build failed (${problems.length} problem${problems.length === 1 ? "" : "s"}) — `
    + "showing the last good build. Fix the files and save; this page reloads by itself.");
  const list = styled("ul", LOOK.list);
  for (const problem of problems) {
    const item = document.createElement("li");
    item.append(styled("code", LOOK.code, String(problem)));
    list.append(item);
  }
  const close = styled("button", LOOK.button, "Dismiss");
  close.type = "button";
  close.addEventListener("click", removeBanner);
  const wrap = document.createElement("div");
  wrap.append(title, list, close);
  root.append(wrap);
  document.body.append(host);
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
