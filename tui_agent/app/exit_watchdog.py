"""The last resort after a stopping signal: Textual's close writes to the terminal, and with the
terminal gone it has been seen to hang for good, while a live process keeps its session from being
resumed. The sessions are marked interrupted already: past the grace, the process ends at once."""

from __future__ import annotations

import os
import threading


def _end_now(code: int, note: str) -> None:
    try:
        os.write(2, note.encode())
    finally:
        os._exit(code)


def start(code: int, signal_name: str, grace_s: float) -> threading.Timer:
    """End the process with ``code`` ``grace_s`` seconds from now unless it has ended by then."""
    watchdog = threading.Timer(grace_s, _end_now, args=(code, f"tui-agent: closing took over {grace_s:g} s after "
                                                        f"{signal_name}; ended at once (the session is interrupted, "
                                                        "resumable)\n"))
    watchdog.daemon = True
    watchdog.start()
    return watchdog
