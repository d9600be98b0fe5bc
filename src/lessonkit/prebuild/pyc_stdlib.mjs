// Build the precompiled (.pyc) stdlib zips with Pyodide's own interpreter (the bytecode must match it exactly).
// Usage: node pyc_stdlib.mjs <pyodide dir> <out dir>
// Writes full/python_stdlib.zip (every module as a sourceless .pyc, STORED; fetched on demand), python_stdlib.zip
// (the trimmed zip the page boots with: boot set + common modules + _lessonkit_stdlib, the list of every module in
// the full zip, which the import fallback reads) and python_stdlib.txt (the trimmed module list); prints a JSON
// summary on stdout.
import { writeFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, outDir] = process.argv.slice(2);
if (!pyodideDir || !outDir) {
  console.error("usage: node pyc_stdlib.mjs <pyodide dir> <out dir>");
  process.exit(2);
}
const indexURL = resolve(pyodideDir) + "/";
const { loadPyodide } = await import(pathToFileURL(join(indexURL, "pyodide.mjs")).href);
// Silence the interpreter's own chatter so stdout carries only our JSON summary.
// PYTHONNODEBUGRANGES: the bytecode keeps line numbers but not column ranges. Those only draw the ^^^ under a
// traceback's source line, and these files ship without source, so no traceback through them can show one; left
// in, the column tables are a fifth of the trimmed zip once compressed (1.16 -> 0.91 MB brotli). Learner code is
// compiled in the browser, where the flag is not set: its tracebacks keep their carets.
const py = await loadPyodide({
  indexURL,
  env: { PYTHONNODEBUGRANGES: "1" },
  stdout: () => {},
  stderr: (s) => console.error(s),
});

const code = String.raw`
import sys
boot = set(sys.modules)
import importlib.util, importlib._bootstrap_external as be, json, os, zipfile

# Modules a lesson lab is likely to import (on top of Pyodide's boot set, which has asyncio, inspect, typing, re,
# json, logging, pathlib, zipfile...), plus what labkit and wheel unpacking (cp437) need. Anything else is fetched
# on demand (labkit's import fallback); pages that install requirements boot with the full stdlib (micropip needs
# email, importlib.metadata, tarfile, platform...). Every module here costs cold bytes: the budget is 4.5 MB.
COMMON = """__future__ abc array ast bisect calendar cmath collections collections.abc contextlib copy csv dataclasses datetime decimal
enum fractions functools graphlib hashlib heapq io itertools json keyword linecache math numbers operator pprint random
re reprlib secrets statistics string struct textwrap time timeit tokenize traceback types typing unicodedata warnings
weakref _strptime encodings.ascii encodings.latin_1 encodings.utf_8_sig encodings.utf_16 encodings.utf_32
encodings.cp1252 encodings.cp437 encodings.idna encodings.unicode_escape encodings.raw_unicode_escape""".split()
failed = []
for name in COMMON:
    try:
        __import__(name)
    except Exception as exc:  # an optional module missing in Pyodide is not fatal for the trimmed list
        failed.append(f"{name}: {exc!r}")
keep = boot | set(sys.modules)

PREFIX = "/lib/python%d%d.zip/" % sys.version_info[:2]  # python314.zip, python312.zip on 0.27
src = zipfile.ZipFile(PREFIX.rstrip("/"))
os.makedirs("/out/full", exist_ok=True)
full = zipfile.ZipFile("/out/full/python_stdlib.zip", "w", compression=zipfile.ZIP_STORED)
trim = zipfile.ZipFile("/out/python_stdlib.zip", "w", compression=zipfile.ZIP_STORED)

def module_name(path):
    mod = path[:-3].replace("/", ".")
    return mod[: -len(".__init__")] if mod.endswith(".__init__") else mod

def wanted(path):
    top = path.split("/", 1)[0]
    if top in ("_pyodide", "pyodide"):
        return True
    return path.endswith(".py") and module_name(path) in keep

def entry(name, date_time):
    zi = zipfile.ZipInfo(name, date_time=date_time)
    zi.external_attr = 0o644 << 16
    return zi

count = 0
trim_names = []
full_names = []
for info in src.infolist():
    if info.is_dir():
        continue
    data = src.read(info)
    if info.filename.endswith(".py"):
        code = compile(data, PREFIX + info.filename, "exec", dont_inherit=True)
        payload = bytes(be._code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False))
        name = info.filename + "c"
        full_names.append(module_name(info.filename))
        count += 1
    else:
        payload, name = data, info.filename
    full.writestr(entry(name, info.date_time), payload)
    if wanted(info.filename):
        # A fresh ZipInfo per archive: writestr records the header offset in the object it is given.
        trim.writestr(entry(name, info.date_time), payload)
        if info.filename.endswith(".py"):
            trim_names.append(module_name(info.filename))
full.close()
# Every module the full zip holds: labkit's import fallback downloads it only for one of these (never for a typo).
listing = "NAMES = frozenset(%r)\n" % sorted(full_names)
listing_code = compile(listing, PREFIX + "_lessonkit_stdlib.py", "exec", dont_inherit=True)
trim.writestr(entry("_lessonkit_stdlib.pyc", (1980, 1, 1, 0, 0, 0)),
              bytes(be._code_to_hash_pyc(listing_code, importlib.util.source_hash(listing.encode()), checked=False)))
trim.close()
with open("/out/python_stdlib.txt", "w") as fh:
    fh.write("\n".join(sorted(trim_names)) + "\n")
json.dumps({"compiled": count, "boot_modules": len(boot), "trim_modules": len(trim_names),
            "python": sys.version.split()[0], "failed_imports": failed})
`;
const summary = py.runPython(code);
mkdirSync(outDir, { recursive: true });
for (const name of ["python_stdlib.zip", "full/python_stdlib.zip", "python_stdlib.txt"]) {
  mkdirSync(dirname(join(outDir, name)), { recursive: true });
  writeFileSync(join(outDir, name), py.FS.readFile("/out/" + name));
}
process.stdout.write(summary + "\n");
