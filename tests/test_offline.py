"""The generated service worker (sw.js): what it precaches and how its cache is named (no browser)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest

from lessonkit.offline import precache_urls, render_service_worker, write_service_worker
from lessonkit.site import build_site

ROOT = Path(__file__).resolve().parent.parent
CACHE_RE = re.compile(r'^const CACHE = "(lessonkit-[0-9a-f]{12})";$', re.M)
PRECACHE_RE = re.compile(r"^const PRECACHE = (\[.*?\]);$", re.M | re.S)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once (sw.js written here until the build writes it itself)."""
    out = tmp_path_factory.mktemp("offline") / "site"
    build_site(ROOT, out)
    if not (out / "sw.js").is_file():
        write_service_worker(out, ROOT)
    return out


def parse(sw: str) -> tuple[str, list[str]]:
    """Cache name and precache list of a sw.js text."""
    cache = CACHE_RE.search(sw)
    urls = PRECACHE_RE.search(sw)
    assert cache and urls, "sw.js lacks the CACHE or PRECACHE constant"
    return cache.group(1), json.loads(urls.group(1))


def copy_site(site: Path, dest: Path) -> Path:
    """A private copy of a built site that a test may change."""
    shutil.copytree(site, dest)
    return dest


def test_precache_lists_every_page_asset_and_runtime_file(built: Path) -> None:
    _, urls = parse((built / "sw.js").read_text())
    assert len(urls) == len(set(urls))
    for url in urls:
        assert (built / unquote(url)).is_file(), f"{url} is precached but not in the site"
        assert not url.endswith(".br"), url
        assert not url.startswith(("/", "./")) and "://" not in url, url
    pages = sorted(p.name for p in built.glob("*.html"))
    assert "index.html" in pages and set(pages) <= set(urls)
    static = [p.relative_to(built).as_posix() for p in (built / "static").rglob("*") if p.is_file() and p.suffix != ".br"]
    assert static and set(static) <= set(urls)
    folder = next((built / "runtime").glob("pyodide-314.0.7-*")).name
    runtime = {f"runtime/{folder}/{n}" for n in
               ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")}
    assert runtime <= set(urls)
    labkit = [u for u in urls if u.startswith("runtime/wheels/labkit-") and u.endswith(".whl")]
    assert len(labkit) == 1
    # The page's own config names that wheel: the worker will ask for exactly this URL.
    assert f'"labkit": "{unquote(labkit[0])}"' in (built / "index.html").read_text()


def test_precache_leaves_out_dev_and_host_files(built: Path) -> None:
    _, urls = parse((built / "sw.js").read_text())
    for name in ("dev-reload.js", "editor-entry.js", "sw.js", "_headers", "nginx.conf", ".lessonkit-build"):
        assert not any(u.rsplit("/", 1)[-1] == name for u in urls), name
    # The default lesson declares no requirements, so micropip is not downloaded for offline use either.
    assert not any("micropip" in u for u in urls)


def test_only_wheels_a_page_names_are_precached(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "runtime" / "wheels").mkdir(parents=True)
    for name in ("a-1-py3-none-any.whl", "b-1-py3-none-any.whl", "unused-1-py3-none-any.whl"):
        (site / "runtime" / "wheels" / name).write_bytes(b"PK")
    data = {"lesson": "x", "runtime": {"labkit": "runtime/wheels/a-1-py3-none-any.whl",
                                       "micropip": ["runtime/wheels/b-1-py3-none-any.whl"],
                                       "requirements": ["runtime/wheels/missing-1-py3-none-any.whl"]}}
    (site / "x.html").write_text(f'<script type="application/json" id="lesson-data">{json.dumps(data)}</script>')
    urls = precache_urls(site)
    assert urls == ["x.html", "runtime/wheels/a-1-py3-none-any.whl", "runtime/wheels/b-1-py3-none-any.whl"]


def test_cache_name_is_stable_and_changes_with_any_file(built: Path, tmp_path: Path) -> None:
    name, _ = parse((built / "sw.js").read_text())
    assert parse(render_service_worker(built, ROOT))[0] == name, "same site, same name (no needless reinstall)"
    site = copy_site(built, tmp_path / "site")
    page = site / "index.html"
    page.write_text(page.read_text().replace("</main>", "<p>edited</p></main>", 1))
    after_page = parse(render_service_worker(site, ROOT))[0]
    assert after_page != name
    css = next((site / "static").rglob("*.css"))
    css.write_text(css.read_text() + "\n/* edited */\n")
    assert parse(render_service_worker(site, ROOT))[0] not in (name, after_page)


def test_cache_name_follows_the_vendor_manifest(built: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    manifest = (ROOT / "vendor-manifest.json").read_text()
    (root / "vendor-manifest.json").write_text(manifest)
    same = parse(render_service_worker(built, root))[0]
    assert same == parse((built / "sw.js").read_text())[0]
    (root / "vendor-manifest.json").write_text(manifest.replace("314.0.7", "314.0.8", 1))
    assert parse(render_service_worker(built, root))[0] != same


def test_sw_is_a_valid_classic_script(built: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    result = subprocess.run([node, "--check", str(built / "sw.js")], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "import " not in (built / "sw.js").read_text().split("const PRECACHE", 1)[0]
