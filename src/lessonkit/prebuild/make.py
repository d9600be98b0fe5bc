"""Make the prebuilt files the wheel carries (lessonkit.core.prebuilt reads them): run by `make prebuilt` and when
the wheel is made, from the toolkit's repository, with Node and its npm packages (esbuild, Pyodide, CodeMirror, the
SCORM schemas) installed. Authors never run this: their lessonkit comes with these files made.

Every step is cached by content in the repository's .cache, so making them again after an edit redoes only what the
edit changed; the new folder replaces the old one in two renames.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from lessonkit import __version__, blocks
from lessonkit.assets.mathfont import FOLDER as FONTS
from lessonkit.assets.scripts import js_digest
from lessonkit.assets.styles import css_digest
from lessonkit.core.errors import RuntimeSetupError
from lessonkit.core.files import link, sha256_path
from lessonkit.core.places import PACKAGE, PREBUILT
from lessonkit.core.prebuilt import FORMAT, MANIFEST, sources_digest
from lessonkit.lms import vendor as lms_vendor
from lessonkit.prebuild.bundles import make_editor, make_scripts, make_style
from lessonkit.prebuild.labkit import build_labkit_wheel
from lessonkit.prebuild.mathfont import make_faces
from lessonkit.prebuild.prepare import prepare_runtime
from lessonkit.prebuild.vendor import check_vendor, ensure_wheel
from lessonkit.runtime.download import progress
from lessonkit.runtime.prepared import FOLDER, LOCK, META, runtime_files
from lessonkit.runtime.releases import RELEASES
from lessonkit.runtime.wheels import MICROPIP_VERSION, WHEELS, labkit_digest


def make_prebuilt(root: Path, out: Path = PREBUILT) -> dict[str, Any]:
    """Make every prebuilt file from the repository at `root` into `out`; return the manifest written."""
    started = time.perf_counter()
    problems = check_vendor(root)
    if problems:
        raise RuntimeSetupError("the vendored files do not match vendor-manifest.json:\n" + "\n".join(problems))
    kinds = blocks.types()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}-"))
    try:
        tmp.chmod(0o755)
        progress("prebuilt: the page's bundles")
        bundle = make_scripts(root, kinds, tmp / "js")
        make_style(root, kinds, tmp / "css")
        make_faces(root, tmp / FONTS)
        editor_inputs = make_editor(root, tmp / "js")
        editor = [(rel, (PACKAGE / rel).read_bytes()) for rel in editor_inputs]
        labkits: dict[str, str] = {}
        for n, release in enumerate(RELEASES.values(), 1):
            progress(f"prebuilt: Pyodide {release.version} ({n} of {len(RELEASES)})")
            prepared = prepare_runtime(root, release)
            folder = tmp / FOLDER / release.version
            for name in runtime_files(release):
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                link(prepared / f"{name}.br", folder / f"{name}.br")
            shutil.copyfile(prepared / META, folder / META)
            shutil.copyfile(root / release.folder / LOCK, folder / LOCK)
            labkits[release.version] = build_labkit_wheel(root, tmp / WHEELS, release)
        micropip = ensure_wheel(root, "micropip", MICROPIP_VERSION)
        link(micropip, tmp / WHEELS / micropip.name)
        schemas = tmp / lms_vendor.PREBUILT_FOLDER
        schemas.mkdir()
        for name in lms_vendor.XSD_FILES:
            shutil.copyfile(root / lms_vendor.XSD_DIR / name, schemas / name)
        files = {path.relative_to(tmp).as_posix(): [path.stat().st_size, sha256_path(path)]
                 for path in sorted(tmp.rglob("*")) if path.is_file()}
        manifest = {
            "format": FORMAT,
            "lessonkit": __version__,
            "sources": {"js": js_digest(kinds), "css": css_digest(kinds), "labkit": labkit_digest(),
                        "editor": sources_digest(editor)},
            "bundle": bundle,
            "editor": {"inputs": editor_inputs},
            "wheels": {"labkit": labkits, "micropip": micropip.name},
            "files": files,
        }
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        _swap(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    size = sum(size for size, _ in manifest["files"].values())
    progress(f"prebuilt: {len(manifest['files'])} files, {size / 1e6:.1f} MB, into {out} in "
             f"{time.perf_counter() - started:.1f} s")
    return manifest


def _swap(tmp: Path, out: Path) -> None:
    """Replace `out` with `tmp` in two renames."""
    old = out.with_name(f".{out.name}-old-{os.getpid()}")
    if out.exists():
        out.rename(old)
    tmp.rename(out)
    shutil.rmtree(old, ignore_errors=True)
