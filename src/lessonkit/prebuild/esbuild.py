"""The toolkit repository's pinned esbuild (npm), run on the page's modules and styles when the prebuilt files are
made; its outputs cached by content in the repository's .cache/pageassets."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from lessonkit.core.errors import RuntimeSetupError

CACHE = Path(".cache") / "pageassets"

def cache_key(root: Path, args: tuple[str, ...], files: list[tuple[str, bytes]]) -> str:
    """Cache key: esbuild's pinned version (the lock file), its arguments and the input files."""
    digest = hashlib.sha256("\0".join(args).encode())
    lock = root / "package-lock.json"
    digest.update(lock.read_bytes() if lock.is_file() else b"")
    for name, data in files:
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()[:16]

def run_esbuild(root: Path, entries: list[str], args: list[str], *, stdin: str | None = None) -> str:
    """Run the project's pinned esbuild; return what it printed (the output when reading stdin)."""
    esbuild = root / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists():
        raise RuntimeSetupError(f'{esbuild} not found — run "npm ci"')
    result = subprocess.run([str(esbuild), *entries, *args], cwd=root, input=stdin, capture_output=True,
                            text=True, check=False)
    if result.returncode != 0:
        raise RuntimeSetupError(f"esbuild failed:\n{result.stderr.strip()}")
    return result.stdout
