"""The web table's memory at its table cap: ``MAX_TABLES`` tables (the default settings:
the pretrained pair at every table) opened through the API, then the process's RSS.

    python benchmarks/web_memory.py            # prints the RSS after 1, 8, 64 tables (docs/play.md)
"""

from __future__ import annotations

import time


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def main() -> None:
    from agents.web import MAX_TABLES, Server, create_app

    app = create_app(Server(per_browser=MAX_TABLES))
    client = app.test_client()  # one browser may hold them all here: the per-browser limit lifted
    print(f"before any table: {rss_mb():.0f} MB")
    t0 = time.perf_counter()
    for i in range(1, MAX_TABLES + 1):
        r = client.post("/api/new", json={})
        assert r.status_code == 200, r.json
        if i in (1, 8, MAX_TABLES):
            print(f"{i:3d} tables: {rss_mb():.0f} MB RSS ({time.perf_counter() - t0:.1f} s)")
    assert len(app.config["TABLES"]) == MAX_TABLES


if __name__ == "__main__":
    main()
