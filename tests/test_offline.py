"""The generated service worker (sw.js): what it precaches and how its cache is named (no browser)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest
from course import LESSON, build, first_lesson, png, write_course
from places import FIXTURE, PACKAGE

from lessonkit import runtime as runtime_releases
from lessonkit.hosting.offline import DIGEST_CACHE, precache_urls, render_service_worker
from lessonkit.pipeline.site import build_site
from lessonkit.pipeline.static import tree_hash

ROOT = Path(__file__).resolve().parent.parent
CACHE_RE = re.compile(r'^const CACHE = "(lessonkit-[0-9a-f]{12})";$', re.M)
PRECACHE_RE = re.compile(r"^const PRECACHE = (\[.*?\]);$", re.M | re.S)
LESSONS_RE = re.compile(r"^const LESSONS = (\{.*?\});$", re.M | re.S)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once."""
    out = tmp_path_factory.mktemp("offline") / "site"
    build_site(FIXTURE, out)
    return out


def lessons_of(sw: str) -> dict[str, list[str]]:
    """A sw.js text's LESSONS: each page's runtime URLs, kept when that page registers the worker."""
    found = LESSONS_RE.search(sw)
    assert found, "sw.js lacks the LESSONS constant"
    return json.loads(found.group(1))


def parse(sw: str) -> tuple[str, list[str]]:
    """Cache name and everything a sw.js text keeps for offline use: its precache (the shell), then each lesson's
    runtime (LESSONS: what "Save the course for offline use" keeps)."""
    cache = CACHE_RE.search(sw)
    urls = PRECACHE_RE.search(sw)
    assert cache and urls, "sw.js lacks the CACHE or PRECACHE constant"
    kept = json.loads(urls.group(1))
    for page in lessons_of(sw).values():
        kept += [u for u in page if u not in kept]
    return cache.group(1), kept


def wheels(site: Path) -> list[str]:
    """The wheels the build's pages install and the stdlibs they boot with, as its sw.js precaches them (what the
    build hands render_service_worker)."""
    return [u for u in parse((site / "sw.js").read_text())[1]
            if u.startswith("runtime/wheels/") or u.endswith("/full/python_stdlib.zip")]


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
    folders = sorted(p.name for p in (built / "runtime").glob("pyodide-*"))  # each release a lesson boots
    assert len(folders) == len({f.split("-")[1] for f in folders}) >= 1
    for folder in folders:  # pyodide-<version>-<hash>
        release = runtime_releases.get_release(folder.split("-")[1])
        runtime = {f"runtime/{folder}/{n}" for n in runtime_releases.runtime_files(release) if not n.startswith("full/")}
        assert runtime <= set(urls)
        # The Pyodide packages a lesson requires lie beside its runtime, precached with it (offline after a first
        # visit to any page).
        assert {f"runtime/{folder}/{p.name}" for p in (built / "runtime" / folder).glob("*.whl")} <= set(urls)
    labkit = sorted(unquote(u) for u in urls if u.startswith("runtime/wheels/labkit-") and u.endswith(".whl"))
    assert len(labkit) == len(folders)  # one per release: each compiled by its own CPython
    # The pages' own configs name those wheels: the worker will ask for exactly these URLs.
    named = {json.loads(re.search(r'id="lesson-data">(.*?)</script>', p.read_text(), re.S)[1])["runtime"]["labkit"]
             for p in built.glob("*.html") if p.name != "index.html" and 'id="lesson-data"' in p.read_text()}
    assert sorted(named) == labkit


def test_a_first_visit_keeps_its_own_lessons_runtime_only(built: Path) -> None:
    sw = (built / "sw.js").read_text()
    shell = json.loads(PRECACHE_RE.search(sw).group(1))  # type: ignore[union-attr]
    assert not [u for u in shell if u.startswith("runtime/")], "the install downloads no Python"
    lessons = lessons_of(sw)
    for page in built.glob("*.html"):
        text = page.read_text()
        if page.name == "index.html" or 'id="lesson-data"' not in text:
            continue
        runtime = json.loads(re.search(r'id="lesson-data">(.*?)</script>', text, re.S)[1])["runtime"]
        kept = lessons[page.name]
        folder = runtime["stdLibURL"].split("/")[1]  # runtime/pyodide-<version>-<hash>/…
        assert runtime["labkit"] in kept and runtime["stdLibURL"] in kept, page.name
        assert all(u.startswith(("runtime/wheels/", f"runtime/{folder}/")) for u in kept), (page.name, kept)
        numpy = [u for u in kept if "numpy" in u]
        assert bool(numpy) == ("numpy" in runtime["packages"]), (page.name, numpy)
        if numpy:  # the file the page's Python loads it from
            assert numpy == [runtime["indexURL"] + runtime["lock"]["packages"]["numpy"]["file_name"]]
    assert "" not in lessons, f"a runtime file no lesson names: {lessons.get('')}"
    assert any("numpy" in u for page in lessons.values() for u in page), "the NumPy lesson keeps NumPy"
    assert not any("numpy" in u for u in lessons["scaled-dot-product-attention.html"])


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
    (site / "x.html").write_text("<p>x</p>")
    named = ["runtime/wheels/a-1-py3-none-any.whl", "runtime/wheels/b-1-py3-none-any.whl",
             "runtime/wheels/missing-1-py3-none-any.whl"]  # what the build's pages install (labkit, micropip, ...)
    urls = precache_urls(site, named)
    assert urls == ["x.html", "runtime/wheels/a-1-py3-none-any.whl", "runtime/wheels/b-1-py3-none-any.whl"]


def test_cache_name_is_stable_and_changes_with_any_file(built: Path, tmp_path: Path) -> None:
    name, _ = parse((built / "sw.js").read_text())
    assert parse(render_service_worker(built, None, wheels(built)))[0] == name, "same site, same name (no needless reinstall)"
    site = copy_site(built, tmp_path / "site")
    page = site / "index.html"
    page.write_text(page.read_text().replace("</main>", "<p>edited</p></main>", 1))
    after_page = parse(render_service_worker(site, None, wheels(built)))[0]
    assert after_page != name
    css = next((site / "static").rglob("*.css"))
    css.write_text(css.read_text() + "\n/* edited */\n")
    assert parse(render_service_worker(site, None, wheels(built)))[0] not in (name, after_page)


def test_cache_name_follows_lessonkits_version(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new lessonkit (its runtime, its worker's rules) is a new cache, even for the same files."""
    from lessonkit.hosting import offline

    same = parse(render_service_worker(built, None, wheels(built)))[0]
    assert same == parse((built / "sw.js").read_text())[0]
    monkeypatch.setattr(offline, "__version__", "0.0.0-next")
    assert parse(render_service_worker(built, None, wheels(built)))[0] != same


def test_sw_is_a_valid_classic_script(built: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    result = subprocess.run([node, "--check", str(built / "sw.js")], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "import " not in (built / "sw.js").read_text().split("const PRECACHE", 1)[0]


def test_the_service_worker_is_linted_by_the_bundler() -> None:
    """static/js/sw/sw.js passes esbuild (the page's bundler) without a warning, as a classic script."""
    result = subprocess.run([str(ROOT / "node_modules" / ".bin" / "esbuild"), "static/js/sw/sw.js", "--log-level=warning",
                             "--target=es2020"], cwd=PACKAGE, capture_output=True, text=True, check=False)
    assert result.returncode == 0 and not result.stderr, result.stderr


DIGESTS_RE = re.compile(r"^const DIGESTS = (\{.*?\});$", re.M | re.S)


def digests_of(sw: str) -> dict[str, str]:
    """The DIGESTS constant of a sw.js text: site-relative URL -> sha256 hex."""
    found = DIGESTS_RE.search(sw)
    assert found, "sw.js lacks the DIGESTS constant"
    return dict(json.loads(found.group(1)))


def test_sw_digests_are_the_files_the_build_wrote(built: Path) -> None:
    sw = (built / "sw.js").read_text()
    _, precached = parse(sw)
    digests = digests_of(sw)
    assert set(precached) <= set(digests), "every precached file is checked before it is served"
    for url, digest in digests.items():
        assert hashlib.sha256((built / unquote(url)).read_bytes()).hexdigest() == digest, url
    # Everything the worker may cache on first use is listed too (so it is checked), and nothing else is.
    runtime = {p.relative_to(built).as_posix() for p in (built / "runtime").rglob("*")
               if p.is_file() and p.suffix != ".br"}
    assert {unquote(u) for u in digests} == {unquote(u) for u in precached} | runtime
    assert "runtime/pyodide-" in next(u for u in digests if u.endswith("full/python_stdlib.zip"))


def test_sw_digests_follow_a_changed_big_file(built: Path, tmp_path: Path) -> None:
    """A big file's digest is remembered by inode between builds, and never outlives a change to the file."""
    site = copy_site(built, tmp_path / "site")
    state = tmp_path / "state"  # the course's build state folder
    state.mkdir()
    wasm = next((site / "runtime").rglob("pyodide.asm.wasm"))
    url = wasm.relative_to(site).as_posix()
    first = digests_of(render_service_worker(site, state, wheels(site)))
    assert (state / DIGEST_CACHE).is_file() and first[url] == hashlib.sha256(wasm.read_bytes()).hexdigest()
    data = bytearray(wasm.read_bytes())
    data[100] ^= 0xFF  # same size, new bytes (and a new mtime)
    wasm.write_bytes(bytes(data))
    assert digests_of(render_service_worker(site, state, wheels(site)))[url] == hashlib.sha256(data).hexdigest()


_ASSET_TAG = re.compile(r'<(?:link|script)\b[^>]*>')
_ATTR = re.compile(r'\b(rel|href|src|integrity|type)="([^"]*)"')
_PAGE_DATA = re.compile(r'<script type="application/json" id="lesson-data">(.*?)</script>', re.S)


def test_every_page_script_and_stylesheet_carries_the_hash_of_its_bytes(built: Path) -> None:
    page = first_lesson(built).read_text()
    checked = []
    for tag in _ASSET_TAG.findall(page):
        attrs = dict(_ATTR.findall(tag))
        url = attrs.get("src") or attrs.get("href")
        if attrs.get("rel") in ("icon", "prev", "next") or attrs.get("type") == "application/json" or url is None:
            continue
        if attrs.get("type") == "font/woff2":  # the math font, preloaded for the stylesheet's @font-face, which
            continue                           # cannot carry integrity (the service worker checks its bytes)
        assert "integrity" in attrs, f"no integrity on {tag}"
        data = (built / url).read_bytes()
        assert attrs["integrity"] == "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode(), url
        checked.append(url.rsplit("/", 1)[-1])
    chunks = [name for name in checked if name.startswith("chunk-")]  # the lab's and the exercise's shared one
    assert len(chunks) == 1
    # main.js: preload and script
    assert sorted(set(checked) - set(chunks)) == ["exercise.js", "lab.js", "main.js", "site.css"]
    assert sorted(checked).count("main.js") == 2
    # The modules the lab imports later are checked against the page's data (lab.js's importVerified).
    js = next((built / "static").iterdir()) / "js"
    later = json.loads(_PAGE_DATA.search(page).group(1))["integrity"]
    assert sorted(later) == ["editor.js", "lab-instructor.js"]
    for name, value in later.items():
        assert value == "sha384-" + base64.b64encode(hashlib.sha384((js / name).read_bytes()).digest()).decode()


def test_the_static_folder_name_covers_the_built_bytes(tmp_path: Path) -> None:
    """An esbuild update changes the bundles, not their sources: the versioned URL must change all the same."""
    (tmp_path / "a.js").write_text("export const a = 1;\n")
    same = tree_hash(tmp_path, {"js/a.js": "sha384-one"})
    assert same == tree_hash(tmp_path, {"js/a.js": "sha384-one"})
    assert same != tree_hash(tmp_path, {"js/a.js": "sha384-two"}) != tree_hash(tmp_path)


def test_large_images_are_cached_on_first_use_not_precached(tmp_path: Path) -> None:
    """An install downloads a lesson's images of 1 MB or less, 8 MB of them at most (in path order); a larger one,
    or one past that total, is listed with its digest only: cached, checked, when a page first shows it."""
    names = ["big", *(f"m{n}" for n in range(9)), "small"]
    sizes = {"big": 1_500_000, "small": 1_000, **{f"m{n}": 950_000 for n in range(9)}}
    images = {f"img/{name}.png": png() + b"\0" * (sizes[name] - len(png())) for name in names}
    text = LESSON + "\n" + "\n\n".join(f"![{name}](img/{name}.png)" for name in names) + "\n"
    site = build(write_course(tmp_path, {"a.md": text, **images}))
    sw = (site / "sw.js").read_text()
    _, precached = parse(sw)
    digests = digests_of(sw)
    media = sorted(u for u in digests if "/media/" in u)
    assert [u.rsplit("/", 1)[1] for u in media] == [f"{name}.png" for name in sorted(names)]
    assert [u.rsplit("/", 1)[1] for u in media if u in precached] == [f"m{n}.png" for n in range(8)] + ["small.png"]
    for url in media:
        assert digests[url] == hashlib.sha256((site / unquote(url)).read_bytes()).hexdigest()
