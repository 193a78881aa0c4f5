"""One line typed on the terminal, read without holding the process.

A line read in a worker thread (``asyncio.to_thread(stdin.readline)``) outlives a question that
is answered some other way (Ctrl-C is Submit now): ``asyncio.run`` and the interpreter then wait
for that thread, that is for Enter, after the run has ended. Here a terminal's descriptor is
watched by the event loop instead, so a cancelled read leaves nothing behind; any other stream (a
pipe, a test's StringIO) is read in a daemon thread, which never keeps the process alive.
"""

from __future__ import annotations

import asyncio
import codecs
import os
import threading
from typing import TextIO

READ_BYTES = 4096  # a terminal in canonical mode hands over at most one line per read


def _terminal_fd(stream: TextIO) -> int | None:
    try:
        fd = stream.fileno()
        return fd if os.isatty(fd) else None
    except (AttributeError, ValueError, OSError):  # no descriptor (StringIO), or a closed one
        return None


class LineReader:
    """Reads lines from ``inp`` for an asyncio program; ``""`` at the end of input (as ``readline``)."""

    def __init__(self, inp: TextIO) -> None:
        self.inp = inp
        self._pending = ""  # typed after the line just returned (a terminal not in canonical mode)
        self._decoder = codecs.getincrementaldecoder(getattr(inp, "encoding", None) or "utf-8")("replace")

    async def readline(self) -> str:
        fd = _terminal_fd(self.inp)
        if fd is not None:
            try:
                return await self._from_terminal(fd)
            except NotImplementedError:  # an event loop that cannot watch descriptors
                pass
        return await self._in_daemon_thread()

    async def _from_terminal(self, fd: int) -> str:
        loop = asyncio.get_running_loop()
        got: asyncio.Future[str] = loop.create_future()
        text = self._pending

        def readable() -> None:
            nonlocal text
            try:
                chunk = os.read(fd, READ_BYTES)
            except OSError:  # the terminal went away (EIO after a hang-up): the end of input
                chunk = b""
            text += self._decoder.decode(chunk, final=not chunk)
            if (not chunk or "\n" in text) and not got.done():
                got.set_result(text)

        if "\n" in text:
            got.set_result(text)
        else:
            loop.add_reader(fd, readable)
        try:
            await got
        finally:
            loop.remove_reader(fd)
            self._pending = text  # a cancelled question leaves what was typed for the next one
        line, newline, self._pending = text.partition("\n")
        return line + newline

    async def _in_daemon_thread(self) -> str:
        loop = asyncio.get_running_loop()
        got: asyncio.Future[str] = loop.create_future()

        def settle(result: str | None, error: BaseException | None) -> None:
            if got.done():
                return
            if error is not None:
                got.set_exception(error)
            else:
                got.set_result(result or "")

        def read() -> None:
            try:
                line, error = self.inp.readline(), None
            except Exception as exc:  # noqa: BLE001 - handed to the awaiting side
                line, error = None, exc
            try:
                loop.call_soon_threadsafe(settle, line, error)
            except RuntimeError:  # the loop closed while the line was awaited: nobody wants it
                pass

        threading.Thread(target=read, name="line-input", daemon=True).start()
        return await got
