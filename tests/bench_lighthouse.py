"""Benchmark: Lighthouse's performance score of a page, run offline against a local server with the system Chromium.

Lighthouse is not one of the repository's npm packages (it would add ~150 packages to every `npm ci`): the bench runs
it when it finds it, from `LESSON_LIGHTHOUSE` (the path of its `lighthouse` command), node_modules/.bin or the PATH.
It runs with no network at all (a local page, `--chrome-flags` naming /usr/bin/chromium), with its default mobile
settings (simulated slow 4G and a 4× slower CPU) or `--preset=desktop`. Install it anywhere, for example
`npm i -E --prefix ~/.cache/lessonkit-bench lighthouse@12.2.3` (12.2.3: the newest that runs on Node 20), then
`LESSON_LIGHTHOUSE=~/.cache/lessonkit-bench/node_modules/.bin/lighthouse make bench`.

Without it the bench still prints the metrics the score is made of, as Chromium reports them on the cold visit
(first and largest contentful paint, total blocking time, layout shift: bench_browser's collector).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

INSTALL = ("npm i -E --prefix ~/.cache/lessonkit-bench lighthouse@12.2.3, then "
           "LESSON_LIGHTHOUSE=<that folder>/node_modules/.bin/lighthouse")
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-background-networking --no-first-run"
METRICS = {  # audit id -> the bench's key suffix
    "first-contentful-paint": "fcp",
    "largest-contentful-paint": "lcp",
    "total-blocking-time": "tbt",
    "cumulative-layout-shift": "cls",
}


def lighthouse_command(root: Path) -> Path | None:
    """The `lighthouse` command to run, or None when there is none."""
    named = os.environ.get("LESSON_LIGHTHOUSE")
    candidates = [Path(named).expanduser()] if named else []
    candidates.append(root / "node_modules" / ".bin" / "lighthouse")
    found = shutil.which("lighthouse")
    if found:
        candidates.append(Path(found))
    return next((c for c in candidates if c.is_file()), None)


@dataclass
class Audit:
    """One Lighthouse run: the performance score (0-1) and its metrics (ms; CLS unitless)."""

    score: float
    metrics: dict[str, float]


def run_lighthouse(command: Path, url: str, chromium: str, *, desktop: bool = False, timeout: float = 240) -> Audit:
    """Lighthouse's performance category for `url` (a fresh Chromium profile each run, as Lighthouse makes)."""
    with tempfile.TemporaryDirectory(prefix="lessonkit-lighthouse-") as tmp:
        out = Path(tmp) / "report.json"
        args = [str(command), url, "--quiet", f"--chrome-flags={CHROME_FLAGS}", "--only-categories=performance",
                "--output=json", f"--output-path={out}"]
        if desktop:
            args.append("--preset=desktop")
        env = {**os.environ, "CHROME_PATH": chromium}
        proc = subprocess.run(args, capture_output=True, text=True, env=env, timeout=timeout, check=False)
        if proc.returncode != 0 or not out.is_file():
            raise RuntimeError(f"lighthouse exited {proc.returncode}: {(proc.stderr or proc.stdout).strip()[-300:]}")
        report = json.loads(out.read_text(encoding="utf-8"))
    score = report["categories"]["performance"]["score"]
    if score is None:
        raise RuntimeError(f"lighthouse gave no score: {report.get('runtimeError', {}).get('message', '?')}")
    metrics = {key: float(report["audits"][audit]["numericValue"]) for audit, key in METRICS.items()}
    return Audit(float(score), metrics)
