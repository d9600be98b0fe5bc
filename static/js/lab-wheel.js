// Reads a pure-Python wheel (a zip) in JS, so the worker can write labkit's files into Python's file system
// without Python's own unpacking (shutil, zipfile: 15-70 ms of a boot on a 2-core machine; this is ~1 ms).

const EOCD = 0x06054b50; // end of central directory
const CENTRAL = 0x02014b50; // central directory entry
const LOCAL = 0x04034b50; // local file header

/** Return the wheel's files as [path, bytes] pairs (folders left out). Throws on anything but a plain zip. */
export async function readWheel(buffer) {
  const data = new Uint8Array(buffer);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let end = -1;
  // The end record is the last 22 bytes plus an optional comment of at most 65535 bytes.
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error("the wheel is not a zip file");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const text = new TextDecoder();
  const files = [];
  for (let n = 0; n < count; n++) {
    if (view.getUint32(at, true) !== CENTRAL) throw new Error("the wheel's zip directory is damaged");
    const method = view.getUint16(at + 10, true);
    const size = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const local = view.getUint32(at + 42, true);
    const name = text.decode(data.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    if (name.endsWith("/")) continue;
    if (name.startsWith("/") || name.split("/").includes("..")) throw new Error(`unsafe path in the wheel: ${name}`);
    if (view.getUint32(local, true) !== LOCAL) throw new Error(`the wheel's entry ${name} is damaged`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const raw = data.subarray(start, start + size);
    if (method === 0) files.push(Promise.resolve([name, raw]));
    else if (method === 8) files.push(inflate(raw).then((bytes) => [name, bytes]));
    else throw new Error(`the wheel's entry ${name} uses compression ${method}, not stored or deflate`);
  }
  return Promise.all(files);
}

async function inflate(raw) {
  const stream = new Blob([raw]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
