"""The first use of the numba kernels is said on screen (or done ahead), not a silent pause."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from siete_env import firstuse


def test_a_cold_kernel_is_announced_once_and_then_cached(tmp_path: Path):
    """A fresh ``cache=True`` kernel: cold before its first call (the notice is printed),
    warm after (a new process finds it cached and says nothing)."""
    (tmp_path / "kern.py").write_text(
        textwrap.dedent(
            """
            from numba import njit

            @njit(cache=True)
            def twice(x):
                return 2 * x
            """
        )
    )
    script = textwrap.dedent(
        """
        import sys
        sys.path.insert(0, sys.argv[1])
        import kern
        from siete_env import firstuse
        firstuse.notice(kern.twice, "the test kernel")
        firstuse.notice(kern.twice, "the test kernel")  # once per process
        print(kern.twice(21))
        """
    )
    first = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True)
    assert first.stdout.strip() == "42"
    assert first.stderr.count("siete_env: compiling the test kernel (numba, first use") == 1
    again = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True)
    assert again.stdout.strip() == "42" and "compiling" not in again.stderr


def test_the_package_kernels_are_checked_without_error():
    from siete_env.batched import kernels as K
    from siete_env.solve import kernels as SK

    assert isinstance(firstuse.cache_is_cold(K.new_episode), bool)
    assert isinstance(firstuse.cache_is_cold(SK.banker_pass), bool)
    assert firstuse.cache_is_cold(object()) is False  # not a numba kernel: says nothing
