"""What a page boots its Python with: the runtime linked into the site, and each page's `runtime` object (the lab's
boot makes each worker's init from it)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lessonkit.core.files import link
from lessonkit.runtime.packages import Packages
from lessonkit.runtime.prepared import FULL_STDLIB, STDLIB, runtime_dir, runtime_files, runtime_meta, site_dirname
from lessonkit.runtime.releases import Release, get_release
from lessonkit.runtime.wheels import MICROPIP_VERSION, micropip_wheel, wheel_name

# The fragment the lab's worker adds to one of Pyodide's modules to import it again from the service worker's checked
# offline copy, after an import the browser itself could not answer (sw.js leaves those modules to the browser while
# it is online, so that its code cache serves them). Written into sw.js's data and each page's runtime object.
OFFLINE_COPY = "#lessonkit-offline-copy"


def runtime_fragment(release: Release | None = None) -> dict[str, Any]:
    """Return the page-independent part of the `runtime` page config."""
    release = release or get_release()
    meta = runtime_meta(release)
    base = f"runtime/{site_dirname(release)}/"
    return {
        "pyodide": release.version,
        # 0.27's loader is a classic script pyodide.mjs loads by its own name (the worker fetches it early); 314's is
        # an ES module the worker imports and hands over.
        "asmScript": not release.asm.endswith(".mjs"),
        "inlineLock": release.inline_lock,
        "indexURL": base,
        # Pyodide's two ES modules, named here (the worker imports both itself) so that a copy of the site may serve
        # them under other names: the SCORM package's are .js (lessonkit.scorm.pack), since an LMS such as Moodle
        # serves .mjs with a type no browser runs as a module.
        "pyodideURL": base + "pyodide.mjs",
        "asmURL": base + release.asm,
        "stdLibURL": base + STDLIB,
        # The worker defaults to this same URL (full/ next to stdLibURL's folder) when the page does not pass it.
        "stdLibFullURL": base + FULL_STDLIB,
        # Inline lock with no packages: saves a 119 KB request and documents that the lab loads no Pyodide packages.
        "lock": {"info": meta["lock_info"], "packages": {}},
        "micropip": [],
        "requirements": [],
        # Decompressed sizes: with brotli the Content-Length is the compressed one, so progress needs these.
        "sizes": {name: meta["files"][name]["size"] for name in ("pyodide.asm.wasm", STDLIB)},
        "fullStdLibSize": meta["files"][FULL_STDLIB]["size"],
    }


def page_runtime_config(
    fragment: dict[str, Any], *, worker: str, labkit: str, requirements: Sequence[str] = (),
    worker_integrity: str | None = None, packages: Packages | None = None, releases: Sequence[str] = (),
) -> dict[str, Any]:
    """Return a page's `runtime` object (what lab.js boots Python with) from the fragment and the page's URLs.

    worker_integrity: the Subresource Integrity value of the worker script's bytes (the page fetches them with it and
    starts the worker from them; without one it starts no worker). packages: the page's Pyodide packages, which the
    worker loads by name from `lock` (its entries only, as in the release's lock), so Pyodide checks each download
    against the lock's sha256; their files lie in the runtime's folder under their official names. releases: every
    release the site's pages boot (the page keeps a saved snapshot of each in Cache Storage; default: its own).
    """
    sizes = dict(fragment["sizes"])
    stdlib = fragment["stdLibURL"]
    lock = fragment["lock"]
    if packages is not None and packages.keys:
        lock = packages.lock
        sizes |= {path.name: path.stat().st_size for path in packages.files}
    if requirements or (packages is not None and packages.keys):
        # micropip's install and Pyodide's loadPackage import much the trimmed stdlib leaves out (email,
        # importlib.metadata, tarfile...), NumPy more (pickle, ctypes, platform): such pages boot with the full one
        # rather than download both. sizes is keyed by file name.
        stdlib = fragment["stdLibFullURL"]
        sizes[STDLIB] = fragment["fullStdLibSize"]
    return {
        "pyodide": fragment["pyodide"],
        "offlineCopy": OFFLINE_COPY,
        "releases": sorted(set(releases) | {fragment["pyodide"]}),
        "asmScript": fragment["asmScript"],
        "inlineLock": fragment["inlineLock"],
        "worker": worker,
        "workerIntegrity": worker_integrity,
        "indexURL": fragment["indexURL"],
        "pyodideURL": fragment["pyodideURL"],
        "asmURL": fragment["asmURL"],
        "stdLibURL": stdlib,
        "stdLibFullURL": fragment["stdLibFullURL"],
        "lock": lock,
        "packages": list(packages.keys) if packages is not None else [],
        "labkit": labkit,
        # micropip is only shipped to pages that install extra wheels.
        # (a release without a pinned micropip wheel loads its lock's own, as one of `packages`).
        "micropip": micropip_urls() if requirements and get_release(fragment["pyodide"]).micropip_wheel else [],
        "requirements": list(requirements),
        "sizes": sizes,
    }


def micropip_urls() -> list[str]:
    """Return the page-relative URLs of the wheels micropip needs (just its own: it vendors packaging)."""
    return [f"runtime/wheels/{wheel_name('micropip', MICROPIP_VERSION)}"]


def write_runtime(site: Path, release: Release | None = None, packages: Sequence[Path] = ()) -> dict[str, Any]:
    """Link the prepared runtime (unpacked in the user cache), the verified Pyodide packages and the micropip wheel
    into site/runtime/; return the page config fragment."""
    release = release or get_release()
    prepared = runtime_dir(release)
    dest = site / "runtime" / site_dirname(release)
    dest.mkdir(parents=True, exist_ok=True)
    for name in runtime_files(release):
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        link(prepared / name, dest / name)
        link(prepared / f"{name}.br", dest / f"{name}.br")
    # Beside the runtime, under the lock's file names: Pyodide fetches each from its indexURL by that name. No .br:
    # the files are already deflated, and the bytes served stay the official ones.
    for path in packages:
        link(path, dest / path.name)
    wheels = site / "runtime" / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    wheel = micropip_wheel()
    link(wheel, wheels / wheel.name)
    return runtime_fragment(release)
