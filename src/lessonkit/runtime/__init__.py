"""The lab's Python runtime as a page boots it: the Pyodide releases (releases), each prepared in the prebuilt files
and unpacked once into the user cache (prepared), the wheels a page installs (wheels, requirements), the Pyodide
packages a lesson requires, checked against the release's lock (packages, verified), what a page boots with (config),
and the first steps a build takes on a machine, counted (steps) and shown (download).
Making the prebuilt files is lessonkit.prebuild's, when the wheel is made."""

from lessonkit.core.errors import RuntimeSetupError
from lessonkit.runtime.config import page_runtime_config, runtime_fragment, write_runtime
from lessonkit.runtime.download import first_steps
from lessonkit.runtime.packages import Packages, carried_elsewhere, fetch_packages, load_lock
from lessonkit.runtime.prepared import (
    FULL_STDLIB,
    RUNTIME_FILES,
    STDLIB,
    runtime_dir,
    runtime_files,
    site_dirname,
)
from lessonkit.runtime.releases import DEFAULT_RELEASE, RELEASES, Release, get_release
from lessonkit.runtime.requirements import build_versions, check_pure_wheel, fetch_requirements, split_requires
from lessonkit.runtime.steps import pending_steps
from lessonkit.runtime.wheels import MICROPIP_VERSION, labkit_wheel, micropip_wheel, write_wheels

PYODIDE_VERSION = DEFAULT_RELEASE

__all__ = [
    "DEFAULT_RELEASE", "FULL_STDLIB", "MICROPIP_VERSION", "PYODIDE_VERSION", "RELEASES", "RUNTIME_FILES", "STDLIB",
    "Packages", "Release", "RuntimeSetupError", "build_versions", "carried_elsewhere", "check_pure_wheel",
    "fetch_packages", "fetch_requirements", "first_steps", "get_release", "labkit_wheel", "load_lock", "micropip_wheel",
    "page_runtime_config", "pending_steps", "runtime_dir", "runtime_files", "runtime_fragment", "site_dirname", "split_requires",
    "write_runtime", "write_wheels",
]
