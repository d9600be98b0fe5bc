// Share links for the lab: the code travels in the URL fragment, which never reaches the server and is not
// bound by the ~2 KB URL limits some hosts apply to paths and queries.
//
// Formats (the version lets a later format keep decoding older links):
//   1: #lab=<lab id>&v=1&c=<base64url(deflate-raw(UTF-8 JSON {"code": "..."}))>: the whole code.
//   2: #lab=<lab id>&v=2&b=<the lesson's code hash, BASE_CHARS of it>[&d=<base64url(deflate-raw(UTF-8 JSON
//      {"p": prefix, "s": suffix, "m": "..."}))>]: the code as an edit of the lesson's own (its first p and last s
//      characters, m between them; no d: the lesson's code itself). A class's link for an edited value is then a
//      few dozen characters (a QR code a phone reads from the back of the room); it opens only while the lesson's
//      code is the one it was made from. Version 2 is made when it is the shorter.

const SHARE_VERSION = "1";
const EDIT_VERSION = "2";
export const BASE_CHARS = 12;
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

/** The code as an edit of `original`: {p, s, m} (its common prefix and suffix lengths, and what is between). */
export function editOf(original, code) {
  let p = 0;
  const most = Math.min(original.length, code.length);
  while (p < most && original[p] === code[p]) p += 1;
  let s = 0;
  while (s < most - p && original[original.length - 1 - s] === code[code.length - 1 - s]) s += 1;
  return { p, s, m: code.slice(p, code.length - s) };
}

/**
 * The fragment (without "#") that carries `code` for lab `labId`: as an edit of the lesson's code (`original`, whose
 * hash is `base`) when that is shorter, else the whole code.
 */
export async function encodeShare(labId, code, { original = null, base = "" } = {}) {
  const json = new TextEncoder().encode(JSON.stringify({ code }));
  const packed = toBase64url(await deflate(json));
  const params = new URLSearchParams({ lab: labId, v: SHARE_VERSION });
  const whole = `${params}&c=${packed}`; // base64url needs no escaping; keep it readable
  if (original === null || !base) return whole;
  const edit = new URLSearchParams({ lab: labId, v: EDIT_VERSION, b: base.slice(0, BASE_CHARS) });
  let short = `${edit}`;
  if (code !== original) {
    short += `&d=${toBase64url(await deflate(new TextEncoder().encode(JSON.stringify(editOf(original, code)))))}`;
  }
  return short.length < whole.length ? short : whole;
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

async function unpack(packed) {
  if (!packed || packed.length > MAX_PACKED_CHARS) throw new ShareLinkError("no code, or far too much");
  const bytes = await inflate(fromBase64url(packed));
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new ShareLinkError("not UTF-8 JSON");
  }
}

const isCount = (v) => Number.isSafeInteger(v) && v >= 0;

/** A version 2 link's code: the lesson's (`original`, hash `base`) with its edit applied. */
async function decodeEdit(params, original, base) {
  if (original === null || !base || params.get("b") !== base.slice(0, BASE_CHARS)) {
    throw new ShareLinkError("made from another version of the lesson's code");
  }
  if (!params.has("d")) return original;
  const edit = await unpack(params.get("d"));
  if (!edit || typeof edit !== "object" || !isCount(edit.p) || !isCount(edit.s) || typeof edit.m !== "string"
    || edit.p + edit.s > original.length || Object.keys(edit).length !== 3) {
    throw new ShareLinkError("not an edit of the lesson's code");
  }
  const code = original.slice(0, edit.p) + edit.m + original.slice(original.length - edit.s);
  if (code.length > MAX_CODE_BYTES) throw new ShareLinkError("the shared code is too large");
  return code;
}

/**
 * Decode a share fragment ("#lab=…&v=1&c=…", "#lab=…&v=2&b=…&d=…") into {labId, code}, a version 2 link against
 * the lesson's code `original` and its hash `base`; throws ShareLinkError when it is unusable.
 */
export async function decodeShare(hash, { original = null, base = "" } = {}) {
  const params = new URLSearchParams(String(hash || "").replace(/^#/, ""));
  const labId = params.get("lab");
  const version = params.get("v");
  const packed = params.get("c");
  if (!labId) throw new ShareLinkError("no lab id");
  if (version === EDIT_VERSION) return { labId, code: await decodeEdit(params, original, base) };
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
