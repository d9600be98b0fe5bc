"""Pyodide booted under Node: what the build runs in Pyodide's own CPython (the labkit wheel's bytecode), and what the
tests and `python -m lessonkit.runtime boot-check` check with it."""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lessonkit.core.errors import RuntimeSetupError
from lessonkit.runtime.releases import get_release

_BOOT_JS = r"""
import { readFileSync } from "node:fs";
import { resolve, join } from "node:path";
import { pathToFileURL } from "node:url";
const [dir, stdlib, lock, lockFile, code, ...wheels] = process.argv.slice(1);
const indexURL = resolve(dir) + "/";
const t0 = performance.now();
const { loadPyodide } = await import(pathToFileURL(join(indexURL, "pyodide.mjs")).href);
const out = [];
const opts = { indexURL, stdout: (s) => out.push(s) };
if (stdlib) opts.stdLibURL = resolve(stdlib);
if (lockFile) opts.lockFileURL = lockFile; // releases before lockFileContents (0.27) read the lock from a file
else if (lock) opts.lockFileContents = JSON.parse(lock);
const py = await loadPyodide(opts);
const t1 = performance.now();
try {
  // unpackArchive wants a plain Uint8Array, not a Node Buffer.
  for (const wheel of wheels) py.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel");
  py.runPython(code);
} catch (err) {
  // Print only the message: Node's own report of an uncaught error starts with the 1 MB minified source line.
  process.stderr.write(String(err && err.message ? err.message : err) + "\n", () => process.exit(1));
  await new Promise(() => {});
}
const t2 = performance.now();
console.log(JSON.stringify({ boot_ms: t1 - t0, run_ms: t2 - t1, stdout: out.join("\n") }));
"""

def node_boot_check(
    index_dir: Path,
    stdlib: Path | None = None,
    code: str = "import json, math, random, traceback; print(1+1)",
    wheels: Sequence[Path] = (),
) -> dict[str, Any]:
    """Boot Pyodide under Node (optionally another stdlib zip, wheels unpacked), run code; return timings, stdout."""
    lock, inline = "", True
    if (index_dir / "runtime.json").is_file():
        # A prepared folder has no pyodide-lock.json: boot it like the page does, with the inline lock.
        meta = json.loads((index_dir / "runtime.json").read_text())
        lock = json.dumps({"info": meta["lock_info"], "packages": {}})
        inline = get_release(meta["pyodide"]).inline_lock
    with tempfile.TemporaryDirectory() as tmp:
        lock_file = ""
        if lock and not inline:
            lock_file = str(Path(tmp) / "pyodide-lock.json")
            Path(lock_file).write_text(lock)
        args = [str(index_dir), str(stdlib or ""), lock, lock_file, code, *map(str, wheels)]
        result = subprocess.run(
            ["node", "--input-type=module", "-e", _BOOT_JS, *args],
            capture_output=True, text=True, check=False,
        )
    if result.returncode != 0:
        raise RuntimeSetupError(f"Pyodide did not boot under Node:\n{result.stderr.strip()[-2000:]}")
    report: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return report
