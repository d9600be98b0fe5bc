"""`python -m lessonkit.prebuild [make|check|update-manifest|boot-check [release]]`: the toolkit maintainers' commands,
run in the toolkit's repository (its node_modules and vendor-manifest.json): make the prebuilt files the wheel carries
(the default), check the vendored files, pin them again after an upgrade, boot each prepared runtime under Node."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from lessonkit.core.errors import RuntimeSetupError
from lessonkit.prebuild.node import node_boot_check
from lessonkit.prebuild.prepare import prepare_runtime
from lessonkit.prebuild.vendor import MANIFEST_NAME, check_vendor, update_manifest
from lessonkit.runtime.prepared import FULL_STDLIB, STDLIB
from lessonkit.runtime.releases import RELEASES

USAGE = "usage: python -m lessonkit.prebuild [make|check|update-manifest|boot-check [release]]"


def main(argv: Sequence[str] | None = None) -> int:
    """Run a maintainer command in the repository that is the current folder."""
    args = list(sys.argv[1:] if argv is None else argv)
    root = Path.cwd()
    command = args[0] if args else "make"
    try:
        return _run(command, args[1:], root)
    except RuntimeSetupError as exc:
        print(f"lessonkit.prebuild: {exc}", file=sys.stderr)
        return 1


def _run(command: str, rest: list[str], root: Path) -> int:
    if command == "make":
        from lessonkit.prebuild.make import make_prebuilt

        make_prebuilt(root)
        return 0
    if command == "update-manifest":
        manifest = update_manifest(root)
        print(f"wrote {MANIFEST_NAME} ({len(manifest['files'])} files)")
        return 0
    if command == "check":
        problems = check_vendor(root)
        for problem in problems:
            print(problem, file=sys.stderr)
        print("vendored files match the manifest" if not problems else f"{len(problems)} problem(s)")
        return 1 if problems else 0
    if command == "boot-check":
        for release in [RELEASES[v] for v in rest if v in RELEASES] or list(RELEASES.values()):
            prepared = prepare_runtime(root, release)
            for label, index, stdlib in (
                ("stock", root / release.folder, None),
                ("pyc-full", prepared, prepared / FULL_STDLIB),
                ("pyc-trim", prepared, prepared / STDLIB),
            ):
                report = node_boot_check(index, stdlib)
                boot, run = report["boot_ms"], report["run_ms"]
                print(f"{release.version} {label}: boot {boot:.0f} ms, run {run:.1f} ms, stdout {report['stdout']!r}")
        return 0
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
