"""Child processes that never outlive their parent (the fuzz campaign's workers, the
tournament's, the training run's learners)."""

from __future__ import annotations

import os
import sys


def die_with_parent(parent_pid: int) -> None:
    """Make this child process end when its parent dies, even by SIGKILL (no orphan goes
    on playing or writing files): on Linux the kernel kills it (``prctl(PR_SET_PDEATHSIG,
    SIGKILL)``); everywhere a daemon thread checks twice a second that its parent is still
    ``parent_pid``. Call it first thing in the child."""
    import signal
    import threading
    import time

    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass  # the watchdog below still works
    if os.getppid() != parent_pid:  # the parent died before prctl
        os._exit(1)

    def watchdog() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent_pid:
                os._exit(1)

    threading.Thread(target=watchdog, name="die-with-parent", daemon=True).start()


def quick_exit(code: int = 0) -> None:
    """End a child process that has finished its work and closed its files: its output
    flushed, then ``os._exit``, skipping the interpreter's teardown (with torch loaded,
    seconds spent freeing what the process is about to lose anyway)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


__all__ = ["die_with_parent", "quick_exit"]
