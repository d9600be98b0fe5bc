"""The lab's Python runtime, vendored: Pyodide checked against vendor-manifest.json (vendor), prepared once with its
pyc stdlib and brotli copies (prepare), the wheels a page installs (wheels, requirements), what a page boots with
(config), Pyodide under Node (node); `python -m lessonkit.runtime` runs its commands (__main__)."""

from lessonkit.runtime.config import page_runtime_config, runtime_fragment, write_runtime
from lessonkit.runtime.node import node_boot_check
from lessonkit.runtime.packages import Packages, carried_elsewhere, fetch_packages, load_lock
from lessonkit.runtime.prepare import (
    FULL_STDLIB,
    RUNTIME_CACHE,
    RUNTIME_FILES,
    STDLIB,
    prepare_runtime,
    runtime_dir,
    runtime_files,
    site_dirname,
)
from lessonkit.runtime.releases import DEFAULT_RELEASE, RELEASES, Release, get_release
from lessonkit.runtime.requirements import build_versions, check_pure_wheel, fetch_requirements, split_requires
from lessonkit.runtime.vendor import (
    MANIFEST_NAME,
    MICROPIP_VERSION,
    PYODIDE_VERSION,
    WHEEL_CACHE,
    RuntimeSetupError,
    check_vendor,
    update_manifest,
)
from lessonkit.runtime.wheels import build_labkit_wheel, write_wheels

__all__ = [
    "DEFAULT_RELEASE", "FULL_STDLIB", "MANIFEST_NAME", "MICROPIP_VERSION", "PYODIDE_VERSION", "RELEASES",
    "RUNTIME_CACHE", "RUNTIME_FILES", "STDLIB", "WHEEL_CACHE", "Packages", "Release", "RuntimeSetupError",
    "build_labkit_wheel", "build_versions", "carried_elsewhere", "check_pure_wheel", "check_vendor", "fetch_packages",
    "fetch_requirements", "get_release", "load_lock", "node_boot_check", "page_runtime_config", "prepare_runtime",
    "runtime_dir", "runtime_files", "runtime_fragment", "site_dirname", "split_requires", "update_manifest",
    "write_runtime", "write_wheels",
]
