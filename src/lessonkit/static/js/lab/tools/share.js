// Share links for the lab: the code travels in the URL fragment, which never reaches the server and is not
// bound by the ~2 KB URL limits some hosts apply to paths and queries.
//
// Format (version 1): #lab=<lab id>&v=1&c=<base64url(deflate-raw(UTF-8 JSON {"code": "..."}))>
// The version lets a later format change keep decoding old links.

const SHARE_VERSION = "1";
const MAX_PACKED_CHARS = 200_000; // a lab's code is a few KB; anything far bigger is not a link we made
const MAX_CODE_BYTES = 256 * 1024; // stops a "zip bomb" fragment from filling memory while inflating

/** Why a share link could not be read; the message is for the console, the page shows its own note. */
class ShareLinkError extends Error {}

function toBase64url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new ShareLinkError("not base64url");
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  let binary;
  try {
    binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  } catch {
    throw new ShareLinkError("not base64url");
  }
  return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
}

async function readAll(stream, limit) {
  const reader = stream.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      reader.cancel().catch(() => {});
      throw new ShareLinkError("the shared code is too large");
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

async function deflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  return readAll(stream, Infinity);
}

async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  try {
    return await readAll(stream, MAX_CODE_BYTES);
  } catch (err) {
    if (err instanceof ShareLinkError) throw err;
    throw new ShareLinkError(`not deflate data (${err.message})`);
  }
}

/** True if this browser can make and read share links (CompressionStream with deflate-raw). */
export function shareSupported() {
  try {
    new CompressionStream("deflate-raw");
    new DecompressionStream("deflate-raw");
    return true;
  } catch {
    return false;
  }
}

/** The fragment (without "#") that carries `code` for lab `labId`. */
export async function encodeShare(labId, code) {
  const json = new TextEncoder().encode(JSON.stringify({ code }));
  const packed = toBase64url(await deflate(json));
  const params = new URLSearchParams({ lab: labId, v: SHARE_VERSION });
  return `${params}&c=${packed}`; // base64url needs no escaping; keep it readable
}

/**
 * Which lab a fragment is for, without decoding it: the lab id, or null when the fragment is not a share link.
 * Lets a page with several labs hand the link to the right one.
 */
export function shareTarget(hash) {
  const text = String(hash || "").replace(/^#/, "");
  if (!/(^|&)lab=/.test(text)) return null;
  return new URLSearchParams(text).get("lab");
}

/** Decode a share fragment ("#lab=…&v=1&c=…") into {labId, code}; throws ShareLinkError when it is unusable. */
export async function decodeShare(hash) {
  const params = new URLSearchParams(String(hash || "").replace(/^#/, ""));
  const labId = params.get("lab");
  const version = params.get("v");
  const packed = params.get("c");
  if (!labId) throw new ShareLinkError("no lab id");
  if (version !== SHARE_VERSION) throw new ShareLinkError(`unknown link version ${JSON.stringify(version)}`);
  if (!packed || packed.length > MAX_PACKED_CHARS) throw new ShareLinkError("no code, or far too much");
  const bytes = await inflate(fromBase64url(packed));
  let data;
  try {
    data = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new ShareLinkError("not UTF-8 JSON");
  }
  if (!data || typeof data !== "object" || typeof data.code !== "string") {
    throw new ShareLinkError("no code in the payload");
  }
  return { labId, code: data.code };
}
