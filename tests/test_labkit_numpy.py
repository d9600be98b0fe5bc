"""labkit's clean state with NumPy (the page's package, adopted by the worker before any learner code): kept imported
between runs, its names and its global settings put back. In a fresh CPython each: NumPy cannot be imported twice."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from places import FIXTURE

ROOT = Path(__file__).resolve().parent.parent

SESSION = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from labkit import make_runner
    out = []
    runner = make_runner(out.append, out.append)
    runner.warm_up()
    runner.settle()
    out.clear()
    runner.adopt('["numpy"]')  # what the worker does once the page's packages are loaded
    results = []
    for code in json.loads(sys.argv[2]):
        result = json.loads(runner(code, "lab.py"))
        runner.settle()
        results.append({"ok": result["ok"], "error": result["error"] and result["error"]["message"],
                        "out": "".join(out)})
        out.clear()
    print(json.dumps(results))
""")


def runs(*codes: str) -> list[dict[str, object]]:
    """Each code run in turn by one runner, as the worker runs them; their outcomes."""
    done = subprocess.run([sys.executable, "-W", "error::UserWarning", "-c", SESSION, str(FIXTURE / "lab"),
                           json.dumps(codes)], capture_output=True, text=True, check=True, timeout=120)
    assert done.stderr == ""
    results: list[dict[str, object]] = json.loads(done.stdout)
    return results


def test_numpy_changed_by_a_run_is_as_before_for_the_next() -> None:
    first, second, third = runs(
        "import numpy as np\nnp.random.seed(0)\nnp.seterr(all='raise')\nnp.set_printoptions(precision=2)\n"
        "np.pi2 = 6.28\nnp.seterrcall(print)\nprint(np.random.rand())",
        "import numpy as np, sys\nprint(np.random.rand() != 0.7151893663724195, np.geterr()['divide'], "
        "np.get_printoptions()['precision'], hasattr(np, 'pi2'), np.geterrcall(), np.array([1/3]))",
        "import numpy as np\nprint(np.__version__, np.float64(1.0) / 0)",
    )
    assert first == {"ok": True, "error": None, "out": "0.5488135039273248\n"}
    assert second == {"ok": True, "error": None, "out": "True warn 8 False None [0.33333333]\n"}
    assert third["ok"] and str(third["out"]).endswith(" inf\n")  # a division by zero warns again, never raises


def test_the_legacy_random_seed_is_fresh_each_run() -> None:
    first, second = runs("import numpy as np\nprint(np.random.rand())", "import numpy as np\nprint(np.random.rand())")
    assert first["out"] != second["out"]
