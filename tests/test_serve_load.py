"""The server under a burst of concurrent clients, on the real built site: every answer complete and right.

Counts errors, never seconds: a connection reset, a refused connect (the listen queue overflowed and the SYN had
to be sent again), a wrong status or a body that differs from the file. How long the burst takes is a benchmark
row (tests/bench.py, "Dev server, 200 clients at once").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_server import concurrent_load, expected_file, expected_page

from lessonkit.serve.server import start_server

CLIENTS = 200


@pytest.mark.parametrize("dev", [True, False], ids=["dev-server", "production-headers"])
def test_200_clients_at_once_get_the_page_and_the_wasm(built_site: Path, dev: bool) -> None:
    wasm = "/" + next(built_site.glob("runtime/*/pyodide.asm.wasm")).relative_to(built_site).as_posix()
    with start_server(built_site, dev=dev) as handle:
        page = expected_page(handle.port)  # as sent: the dev server adds its live-reload script
        result = concurrent_load(handle.port, [page, expected_file(built_site, wasm)], CLIENTS)
    assert result.errors == [], f"{len(result.errors)} errors, first: {result.errors[:5]}"
    half = CLIENTS // 2
    # Half the clients asked for brotli and got it (the wasm's .br sibling, the page's copy made off the request
    # path); the other half got the files as they are.
    assert result.encodings == {"/": {"br": half, "identity": half}, wasm: {"br": half, "identity": half}}
