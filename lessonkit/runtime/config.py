"""What a page boots its Python with: the runtime linked into the site, and each page's `runtime` object (the lab's
boot makes each worker's init from it)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lessonkit.build.files import link
from lessonkit.runtime.prepare import FULL_STDLIB, RUNTIME_FILES, STDLIB, prepare_runtime, runtime_meta, site_dirname
from lessonkit.runtime.vendor import MICROPIP_VERSION, ensure_wheel, wheel_name


def runtime_fragment(root: Path) -> dict[str, Any]:
    """Return the page-independent part of the `runtime` page config (prepares the runtime on first use)."""
    meta = runtime_meta(root.resolve())
    base = f"runtime/{site_dirname(root)}/"
    return {
        "indexURL": base,
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
    worker_integrity: str | None = None,
) -> dict[str, Any]:
    """Return a page's `runtime` object (what lab.js boots Python with) from the fragment and the page's URLs.

    worker_integrity: the Subresource Integrity value of the worker script's bytes (the page fetches them with it and
    starts the worker from them; without one it starts no worker).
    """
    sizes = dict(fragment["sizes"])
    stdlib = fragment["stdLibURL"]
    if requirements:
        # micropip's install imports much the trimmed stdlib leaves out (email, importlib.metadata, tarfile...):
        # such pages boot with the full one rather than download both. sizes is keyed by file name.
        stdlib = fragment["stdLibFullURL"]
        sizes[STDLIB] = fragment["fullStdLibSize"]
    return {
        "worker": worker,
        "workerIntegrity": worker_integrity,
        "indexURL": fragment["indexURL"],
        "stdLibURL": stdlib,
        "stdLibFullURL": fragment["stdLibFullURL"],
        "lock": fragment["lock"],
        "labkit": labkit,
        # micropip is only shipped to pages that install extra wheels.
        "micropip": micropip_urls() if requirements else [],
        "requirements": list(requirements),
        "sizes": sizes,
    }


def micropip_urls() -> list[str]:
    """Return the page-relative URLs of the wheels micropip needs (just its own: it vendors packaging)."""
    return [f"runtime/wheels/{wheel_name('micropip', MICROPIP_VERSION)}"]


def write_runtime(site: Path, root: Path) -> dict[str, Any]:
    """Link the prepared runtime and the micropip wheel into site/runtime/; return the page config fragment."""
    prepared = prepare_runtime(root)
    dest = site / "runtime" / site_dirname(root)
    dest.mkdir(parents=True, exist_ok=True)
    for name in RUNTIME_FILES:
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        link(prepared / name, dest / name)
        link(prepared / f"{name}.br", dest / f"{name}.br")
    wheels = site / "runtime" / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    wheel = ensure_wheel(root, "micropip", MICROPIP_VERSION)
    link(wheel, wheels / wheel.name)
    return runtime_fragment(root)
