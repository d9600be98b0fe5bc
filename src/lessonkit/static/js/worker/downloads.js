// The lab worker's downloads: counting the runtime's bytes for the loading line, and handing Pyodide a wasm module
// the worker compiled itself (or was given). Bundled into lab-worker.js; runs only before learner code does.

import { MSG } from "../lab/protocol.js";
import { Said } from "./channel.js";

const PROGRESS_EVERY_MS = 100; // enough for a smooth counter without flooding the page

export function describe(err) {
  if (err && typeof err === "object" && "message" in err) return String(err.message);
  return String(err);
}

/** The absolute URL a fetch(input) asks for (every URL the worker uses is absolute: its own is a blob: URL). */
export function absoluteURL(input) {
  return new URL(input instanceof Request ? input.url : String(input)).href;
}

// A fetch that counts the big downloads so the page can show "Downloading Python… 4.1 of 12 MB" (it words it).
// early: url -> Promise<Response> of a fetch already under way, handed to the first request for that url.
// counted: false hands responses over as they are, with no progress line: a visit with a saved snapshot has had
// the runtime before, so it comes from the cache (counting it would only cost the worker time on the way to
// Ready, and "Downloading" would not be true).
// Returns {fetch, failed: Promise that rejects on a bad response, done: Promise when all tracked bodies are read}.
export function trackDownloads(post, id, urls, sizes, early, counted = true) {
  const realFetch = self.fetch.bind(self);
  const files = new Map(urls.map((url) => [url, { loaded: 0, total: sizes[url] || 0, done: false }]));
  let lastPost = 0;
  let rejectFailed;
  let resolveDone;
  const failed = new Promise((_, reject) => {
    rejectFailed = reject;
  });
  failed.catch(() => {}); // observed by the race in init; avoid an unhandled rejection otherwise
  const done = new Promise((resolve) => {
    resolveDone = resolve;
  });

  const report = (force) => {
    if (!counted) return; // nothing is downloaded: the page goes from "Loading Python…" to "Starting Python…"
    const now = performance.now();
    if (!force && now - lastPost < PROGRESS_EVERY_MS) return;
    lastPost = now;
    let loaded = 0;
    let total = 0;
    let totalKnown = true;
    for (const f of files.values()) {
      loaded += f.loaded;
      total += f.total;
      if (!f.total) totalKnown = false;
    }
    post({ type: MSG.PROGRESS, id, phase: "download", loaded, total: totalKnown ? total : null });
  };

  const finishOne = (file) => {
    file.done = true;
    report(true);
    if ([...files.values()].every((f) => f.done)) resolveDone();
  };

  const trackedFetch = async (input, init) => {
    const url = absoluteURL(input);
    const file = files.get(url);
    if (!file) return realFetch(input, init);
    let resp;
    try {
      const started = early.get(url);
      early.delete(url); // used once: a second boot in this worker (after a failed snapshot) fetches again
      resp = await (started || realFetch(input, init));
    } catch (err) {
      const file = url.split("/").pop();
      rejectFailed(new Said("worker.download_broken", { file }, `could not download ${file}: ${describe(err)}`));
      throw err;
    }
    const name = url.split("/").pop();
    if (!resp.ok) {
      rejectFailed(new Said("worker.download_failed", { file: name, status: String(resp.status) }));
      return resp;
    }
    const type = resp.headers.get("content-type") || "";
    if (name.endsWith(".wasm") && !type.startsWith("application/wasm")) {
      // An LMS serves the package's files by its own table of types (Moodle: "document/unknown" for .wasm), which
      // compileStreaming refuses: the bytes are the same, so they are compiled as WebAssembly all the same.
      const headers = new Headers(resp.headers);
      headers.set("content-type", "application/wasm");
      resp = new Response(resp.body, { status: resp.status, statusText: resp.statusText, headers });
    }
    if (!resp.body || !counted) {
      file.loaded = file.total;
      finishOne(file);
      return resp;
    }
    // Content-Length counts compressed bytes when the server precompresses; the stream yields
    // decompressed ones, so only trust it for uncompressed responses (or use the build's sizes).
    const length = Number(resp.headers.get("content-length"));
    if (!file.total && !resp.headers.get("content-encoding") && length > 0) file.total = length;
    // Counted on a copy: the response itself goes on as the browser made it, so the wasm's streaming compile keeps
    // its URL, and with it the browser's code cache for the module (a Response made here would have neither).
    const reader = resp.clone().body.getReader();
    (async () => {
      try {
        for (;;) {
          const { done: finished, value } = await reader.read();
          if (finished) break;
          file.loaded += value.byteLength;
          report(false);
        }
        finishOne(file);
      } catch (err) {
        rejectFailed(new Said("worker.download_broken", { file: name }, `the download of ${name} was interrupted: ${describe(err)}`));
      }
    })();
    return resp;
  };
  report(true);
  return { fetch: trackedFetch, failed, done };
}

// Pyodide fetches the wasm at once but instantiates it only after pyodide.asm.mjs is in and, on a snapshot boot,
// the snapshot is read (it sizes the memory). The worker compiles the module from its own early download
// meanwhile, or was handed one an earlier boot compiled: while Pyodide boots, its request for the file gets an
// empty stand-in, and instantiateStreaming of that stand-in instantiates the compiled module. Returns the function that puts fetch and instantiateStreaming back.
export function useCompiledWasm(wasmURL, module, fetchOthers) {
  const nativeFetch = self.fetch;
  const nativeInstantiate = WebAssembly.instantiateStreaming;
  const standIns = new WeakSet();
  self.fetch = async (input, init) => {
    const url = absoluteURL(input);
    if (url !== wasmURL) return fetchOthers(input, init);
    const standIn = new Response(null, { headers: { "Content-Type": "application/wasm" } });
    standIns.add(standIn);
    return standIn;
  };
  WebAssembly.instantiateStreaming = async (source, imports) => {
    const response = await source;
    if (!standIns.has(response)) return nativeInstantiate.call(WebAssembly, response, imports);
    const compiled = await module;
    return { module: compiled, instance: await WebAssembly.instantiate(compiled, imports) };
  };
  return () => {
    self.fetch = nativeFetch;
    WebAssembly.instantiateStreaming = nativeInstantiate;
  };
}
