"""`python -m lessonkit.runtime {update-manifest|check|prepare|boot-check}`: the runtime's maintainer commands."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from lessonkit.runtime.node import node_boot_check
from lessonkit.runtime.prepare import FULL_STDLIB, STDLIB, prepare_runtime
from lessonkit.runtime.releases import RELEASES
from lessonkit.runtime.vendor import MANIFEST_NAME, check_vendor, update_manifest


def main(argv: Sequence[str] | None = None) -> int:
    """Run the maintainer CLI: update-manifest, check, prepare or boot-check."""
    args = list(sys.argv[1:] if argv is None else argv)
    root = Path.cwd()
    command = args[0] if args else ""
    if command == "update-manifest":
        manifest = update_manifest(root)
        print(f"wrote {MANIFEST_NAME} ({len(manifest['files'])} files)")
        return 0
    if command == "check":
        problems = check_vendor(root)
        for problem in problems:
            print(problem, file=sys.stderr)
        print("vendored runtime files match the manifest" if not problems else f"{len(problems)} problem(s)")
        return 1 if problems else 0
    releases = [RELEASES[v] for v in args[1:] if v in RELEASES] or list(RELEASES.values())
    if command == "prepare":
        for release in releases:
            print(prepare_runtime(root, release))
        return 0
    if command == "boot-check":
        for release in releases:
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
    print("usage: python -m lessonkit.runtime {update-manifest|check|prepare [release]|boot-check [release]}",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
