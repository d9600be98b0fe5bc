// Packs a Python memory snapshot for Cache Storage without its zero pages. A heap of ~31 MB right after boot is
// ~60 % untouched pages: packed it is ~12 MB, so a later visit reads (and the first visit writes) a third of it.
//
// Format (little-endian): "LKHEAP01" | u32 heap length | u32 run count | run count x (u32 offset, u32 length) |
// the runs' bytes, in order. A run is a stretch of whole pages holding a non-zero byte; the rest is zeros.

const MAGIC = "LKHEAP01";
const PAGE = 4096; // bytes (a multiple of 4: pages are scanned as 32-bit words)

/** Return heap (a Uint8Array) packed as described above. */
export function packHeap(heap) {
  // Scanned as 32-bit words (a copy when the bytes are not 4-aligned); a page ends at its first non-zero word.
  const bytes = heap.byteOffset % 4 === 0 ? heap : heap.slice();
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 4));
  const pageHasData = (start) => {
    const end = Math.min(start + PAGE, bytes.byteLength);
    const wordEnd = Math.floor(end / 4);
    for (let w = start / 4; w < wordEnd; w++) if (words[w] !== 0) return true;
    for (let i = wordEnd * 4; i < end; i++) if (bytes[i] !== 0) return true; // the heap's last, partial word
    return false;
  };
  const runs = [];
  let dataBytes = 0;
  for (let start = 0; start < heap.byteLength; start += PAGE) {
    if (!pageHasData(start)) continue;
    const length = Math.min(PAGE, heap.byteLength - start);
    const last = runs[runs.length - 1];
    if (last && last[0] + last[1] === start) last[1] += length;
    else runs.push([start, length]);
    dataBytes += length;
  }
  const headerBytes = MAGIC.length + 8 + runs.length * 8;
  const out = new Uint8Array(headerBytes + dataBytes);
  const view = new DataView(out.buffer);
  for (let i = 0; i < MAGIC.length; i++) out[i] = MAGIC.charCodeAt(i);
  view.setUint32(MAGIC.length, heap.byteLength, true);
  view.setUint32(MAGIC.length + 4, runs.length, true);
  let at = headerBytes;
  runs.forEach(([offset, length], i) => {
    view.setUint32(MAGIC.length + 8 + i * 8, offset, true);
    view.setUint32(MAGIC.length + 12 + i * 8, length, true);
    out.set(heap.subarray(offset, offset + length), at);
    at += length;
  });
  return out;
}

/** Return the heap that packed (an ArrayBuffer or Uint8Array from packHeap) holds. Throws if it is not one. */
export function unpackHeap(packed) {
  const data = packed instanceof Uint8Array ? packed : new Uint8Array(packed);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const fixed = MAGIC.length + 8;
  if (data.byteLength < fixed || String.fromCharCode(...data.subarray(0, MAGIC.length)) !== MAGIC) {
    throw new Error("the saved snapshot is not a packed heap");
  }
  const heapLength = view.getUint32(MAGIC.length, true);
  const count = view.getUint32(MAGIC.length + 4, true);
  let at = fixed + count * 8;
  if (at > data.byteLength) throw new Error("the saved snapshot is cut short");
  const heap = new Uint8Array(heapLength); // zero-filled: only the runs are copied in
  let end = 0;
  for (let i = 0; i < count; i++) {
    const offset = view.getUint32(fixed + i * 8, true);
    const length = view.getUint32(fixed + 4 + i * 8, true);
    if (offset < end || offset + length > heapLength) throw new Error("the saved snapshot's page list is invalid");
    if (at + length > data.byteLength) throw new Error("the saved snapshot is cut short");
    heap.set(data.subarray(at, at + length), offset);
    at += length;
    end = offset + length;
  }
  if (at !== data.byteLength) throw new Error("the saved snapshot has bytes after its last page");
  return heap;
}
