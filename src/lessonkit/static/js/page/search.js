// The course's search box (templates/search.html): finds lessons and their sections by words in their text, in the
// Pagefind index the build wrote into pagefind/ (lessonkit/search.py). The box is in the HTML hidden (search needs
// JavaScript); this module shows it and loads Pagefind's pagefind.js — checked against the integrity the page names —
// only when the learner first focuses the box or types, never on page load. Results are a list of links (lesson,
// section, excerpt); the excerpt is Pagefind's text with <mark> around the matched words, rebuilt here as text nodes
// and <mark> elements: nothing from the index is ever inserted into the page as HTML.
import { num, t, tn } from "./i18n.js";

const DEBOUNCE_MS = 150; // a search per pause in typing, not per key
const MAX_LESSONS = 10; // lessons listed (each loads one small fragment of the index)
const MAX_SECTIONS = 3; // sections listed per lesson, the ones with the most matches first
const EXCERPT_WORDS = 24;
const SEARCHABLE = /[\p{L}\p{N}]/u; // a query needs a letter or a digit: Pagefind indexes words, not punctuation
// A query is a few words: the box takes at most MAX_QUERY characters (its maxlength, and cut here too, since a script
// or an extension can set a longer value), and the status repeats at most MAX_ECHO of it, so the polite live region
// reads one short sentence.
const MAX_QUERY = 100;
const MAX_ECHO = 40;

/** Start the search box of the page (if it has one). */
export function init(root = document) {
  const box = root.querySelector("[data-search]");
  if (!box) return;
  const input = box.querySelector("[data-search-input]");
  const status = box.querySelector("[data-search-status]");
  const list = box.querySelector("[data-search-results]");
  const panel = box.querySelector("[data-search-panel]");
  const bundle = new URL(box.dataset.searchBundle, document.baseURI).href;
  const integrity = box.dataset.searchIntegrity;
  let pagefind = null; // the promise of the loaded and initialised pagefind.js module
  let latest = 0; // the newest query's number: an older query's answer arriving late is dropped
  input.maxLength = MAX_QUERY;

  const load = () => {
    if (!pagefind) {
      pagefind = loadPagefind(bundle, integrity);
      pagefind.catch(() => {
        pagefind = null; // reported when a search needs it; the next one tries again
      });
    }
    return pagefind;
  };

  // The panel is open while the box has focus and something to say; it closes when focus leaves the box.
  const open = (yes = box.contains(document.activeElement)) => {
    panel.classList.toggle("open", yes && Boolean(status.textContent || list.childElementCount));
  };
  const clear = (message = "") => {
    list.replaceChildren();
    list.hidden = true;
    status.textContent = message;
    open();
  };

  const search = async (query) => {
    const n = ++latest;
    const text = cut(query, MAX_QUERY).trim();
    if (!text) {
      clear();
      return;
    }
    if (!SEARCHABLE.test(text)) {
      clear(t("search.no_words", { query: echo(text) }));
      return;
    }
    try {
      const api = await load();
      const found = await api.debouncedSearch(text, {}, DEBOUNCE_MS);
      if (found === null || n !== latest) return; // a newer query replaced this one
      const pages = await Promise.all(found.results.slice(0, MAX_LESSONS).map((result) => result.data()));
      if (n !== latest) return;
      show(list, status, text, pages, found.results.length);
      open();
    } catch (err) {
      if (n !== latest) return;
      console.error("Search could not run:", err);
      clear(t("search.failed"));
    }
  };

  input.addEventListener("focus", load, { once: true });
  box.addEventListener("focusin", () => open(true));
  box.addEventListener("focusout", (event) => open(box.contains(event.relatedTarget)));
  input.addEventListener("input", () => search(input.value));
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" && !list.hidden) {
      event.preventDefault();
      list.querySelector("a")?.focus();
    } else if (event.key === "Escape" && input.value) {
      event.preventDefault();
      input.value = "";
      latest++;
      clear();
    }
  });
  list.addEventListener("keydown", (event) => {
    const links = [...list.querySelectorAll("a")];
    const at = links.indexOf(document.activeElement);
    if (at < 0) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const next = at + (event.key === "ArrowDown" ? 1 : -1);
      if (next < 0) input.focus();
      else links[Math.min(next, links.length - 1)].focus();
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      links[event.key === "Home" ? 0 : links.length - 1].focus();
    } else if (event.key === "Escape") {
      event.preventDefault();
      input.value = "";
      latest++;
      clear();
      input.focus();
    }
  });
  box.hidden = false;
}

/** Import pagefind.js once its bytes are checked, and point its results at the site's folder (any sub-path). */
function loadPagefind(bundle, integrity) {
  if (!integrity) return Promise.reject(new Error("the page names no integrity hash for the search index"));
  // A <link rel="modulepreload" integrity> puts the module in the module map only if its bytes match; import()
  // then takes it from there (no second request).
  return new Promise((resolve, reject) => {
    const link = Object.assign(document.createElement("link"), { rel: "modulepreload", href: bundle, integrity });
    link.addEventListener("load", resolve, { once: true });
    link.addEventListener("error", () => reject(new Error(`${bundle} could not load, or is not the file the build wrote`)),
                          { once: true });
    document.head.append(link);
  })
    .then(() => import(bundle))
    .then(async (api) => {
      // Result URLs are site-relative in the index; the site's folder is the one above pagefind/.
      await api.options({ baseUrl: new URL("../", bundle).pathname, excerptLength: EXCERPT_WORDS });
      await api.init();
      return api;
    });
}

/** The first `most` characters of `text` (whole code points: an emoji is never split). */
function cut(text, most) {
  if (text.length <= most) return text;
  return Array.from(text.slice(0, most * 2)).slice(0, most).join("");
}

/** A query as the status repeats it: whole when short, else its start and "…". */
function echo(query) {
  const shown = cut(query, MAX_ECHO);
  return shown === query ? query : `${cut(query, MAX_ECHO - 1).trimEnd()}…`;
}

/** Fill the list with one link per section found, and say how many lessons matched. */
function show(list, status, query, pages, total) {
  const items = [];
  for (const page of pages) {
    const lesson = page.meta?.title || page.url;
    for (const section of sections(page)) items.push(resultItem(lesson, section));
  }
  list.replaceChildren(...items);
  list.hidden = items.length === 0;
  if (total === 0) status.textContent = t("search.none", { query: echo(query) });
  else {
    status.textContent = total > pages.length
      ? tn("search.found_first", total, { query: echo(query), shown: num(pages.length) })
      : tn("search.found", total, { query: echo(query) });
  }
}

/** The lesson's sections that matched (Pagefind's sub-results), the most matches first, else the lesson itself. */
function sections(page) {
  const subs = (page.sub_results || []).filter((sub) => typeof sub.url === "string");
  if (!subs.length) return [{ title: "", url: page.url, excerpt: page.excerpt }];
  const matches = (sub) => (sub.locations || []).length;
  return subs
    .map((sub, order) => ({ sub, order }))
    .sort((a, b) => matches(b.sub) - matches(a.sub) || a.order - b.order)
    .slice(0, MAX_SECTIONS)
    .map(({ sub }) => ({ title: sub.title === page.meta?.title ? "" : sub.title, url: sub.url, excerpt: sub.excerpt }));
}

function resultItem(lesson, section) {
  const li = document.createElement("li");
  const link = Object.assign(document.createElement("a"), { className: "search-result-link", href: section.url });
  if (section.title) {
    link.append(span("search-result-section", section.title), " — ", span("search-result-lesson", lesson));
  } else {
    link.append(span("search-result-section", lesson));
  }
  const excerpt = Object.assign(document.createElement("p"), { className: "search-result-excerpt" });
  excerpt.append(...excerptNodes(section.excerpt || ""));
  li.append(link, excerpt);
  return li;
}

function span(className, text) {
  return Object.assign(document.createElement("span"), { className, textContent: text });
}

/** Pagefind's excerpt (text with <mark>…</mark>, entities escaped) as text nodes and <mark> elements. */
function excerptNodes(html) {
  // The browser's own parser decodes it in an inert document (no script runs, nothing loads); only text and the
  // <mark> boundaries are copied into the page.
  const parsed = new DOMParser().parseFromString(html, "text/html").body;
  return [...parsed.childNodes].map((node) => {
    if (node.nodeName !== "MARK") return document.createTextNode(node.textContent);
    return Object.assign(document.createElement("mark"), { textContent: node.textContent });
  });
}
