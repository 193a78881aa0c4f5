"""Who holds a session: the process running it, named by host, boot, pid and start time.

A session row names its owner with :func:`owner_token`; :func:`owner_alive` tells whether that
process still runs. A process that has exited but is not yet reaped by its parent (a zombie,
state ``Z``, or ``X`` while it is being removed) runs nothing: it holds no session. That is what a
killed run looks like in a container whose PID 1 does not reap.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

# /proc/PID/stat states of a process that has exited (zombie, dead).
EXITED_STATES = frozenset({"Z", "X", "x"})


def boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _stat_fields(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (field 3, the state, comes first)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return stat.rsplit(")", 1)[-1].split()


def start_time(pid: int) -> str:
    """The process's start time since boot (Linux), to tell it from a later one with its pid."""
    fields = _stat_fields(pid)
    return fields[19] if len(fields) > 19 else ""


def has_exited(pid: int) -> bool:
    """Whether the process is a zombie (exited, not reaped) or being removed (Linux)."""
    fields = _stat_fields(pid)
    return bool(fields) and fields[0] in EXITED_STATES


def owner_token(pid: int | None = None) -> str:
    pid = os.getpid() if pid is None else pid
    return json.dumps({"host": socket.gethostname(), "boot": boot_id(), "pid": pid, "start": start_time(pid)})


def owner_alive(token: str | None) -> bool:
    """Whether the process a token names still runs. Another host's sessions count as alive
    (nothing here can tell); no token means nobody holds the session; a zombie holds nothing."""
    if not token:
        return False
    try:
        owner = json.loads(token)
    except ValueError:
        return False
    if not isinstance(owner, dict):
        return False
    if owner.get("host") != socket.gethostname():
        return True
    if owner.get("boot") and owner["boot"] != boot_id():
        return False  # the machine restarted since
    try:
        pid = int(owner.get("pid") or 0)
    except (TypeError, ValueError):
        return False
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's live process
    if has_exited(pid):
        return False
    start = owner.get("start")
    return not start or start == start_time(pid)
