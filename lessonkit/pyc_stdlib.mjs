// Build the precompiled (.pyc) stdlib zips with Pyodide's own interpreter (the bytecode must match it exactly).
// Usage: node pyc_stdlib.mjs <pyodide dir> <out dir>
// Writes python_stdlib.zip (every module as a sourceless .pyc, STORED), python_stdlib_trim.zip (boot set +
// common modules) and python_stdlib_trim.txt (its module list); prints a JSON summary on stdout.
import { writeFileSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, outDir] = process.argv.slice(2);
if (!pyodideDir || !outDir) {
  console.error("usage: node pyc_stdlib.mjs <pyodide dir> <out dir>");
  process.exit(2);
}
const indexURL = resolve(pyodideDir) + "/";
const { loadPyodide } = await import(pathToFileURL(join(indexURL, "pyodide.mjs")).href);
// Silence the interpreter's own chatter so stdout carries only our JSON summary.
const py = await loadPyodide({ indexURL, stdout: () => {}, stderr: (s) => console.error(s) });

const code = String.raw`
import sys
boot = set(sys.modules)
import importlib.util, importlib._bootstrap_external as be, json, os, zipfile

# Modules a lesson lab is likely to import, plus what micropip and labkit need; the trimmed zip keeps these.
COMMON = """abc argparse array ast asyncio base64 bisect calendar collections colorsys contextlib copy csv dataclasses
datetime decimal difflib email email.parser email.message enum fractions functools glob hashlib heapq html inspect io
itertools json keyword linecache logging math numbers operator os pathlib pprint queue random re reprlib shutil statistics
string struct tempfile textwrap time timeit tokenize traceback types typing unicodedata uuid warnings weakref zipfile
zlib importlib.metadata importlib.resources sysconfig urllib.parse""".split()
failed = []
for name in COMMON:
    try:
        __import__(name)
    except Exception as exc:  # an optional module missing in Pyodide is not fatal for the trimmed list
        failed.append(f"{name}: {exc!r}")
keep = boot | set(sys.modules)

PREFIX = "/lib/python314.zip/"
src = zipfile.ZipFile(PREFIX.rstrip("/"))
os.makedirs("/out", exist_ok=True)
full = zipfile.ZipFile("/out/python_stdlib.zip", "w", compression=zipfile.ZIP_STORED)
trim = zipfile.ZipFile("/out/python_stdlib_trim.zip", "w", compression=zipfile.ZIP_STORED)

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
for info in src.infolist():
    if info.is_dir():
        continue
    data = src.read(info)
    if info.filename.endswith(".py"):
        code = compile(data, PREFIX + info.filename, "exec", dont_inherit=True)
        payload = bytes(be._code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False))
        name = info.filename + "c"
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
trim.close()
with open("/out/python_stdlib_trim.txt", "w") as fh:
    fh.write("\n".join(sorted(trim_names)) + "\n")
json.dumps({"compiled": count, "boot_modules": len(boot), "trim_modules": len(trim_names),
            "python": sys.version.split()[0], "failed_imports": failed})
`;
const summary = py.runPython(code);
mkdirSync(outDir, { recursive: true });
for (const name of ["python_stdlib.zip", "python_stdlib_trim.zip", "python_stdlib_trim.txt"]) {
  writeFileSync(join(outDir, name), py.FS.readFile("/out/" + name));
}
process.stdout.write(summary + "\n");
