"""Snapshots of the main states at 120x40 and 100x30 (awaiting approval at 80x24 too): running, awaiting approval, paused in the
prompt inspector, ended with an answer. Deterministic: fixed session id, frozen elapsed time and
date, no timestamps, no spinners, notifications cleared before the picture is taken.

Update with: pytest tests/tui/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

import pytest

from tests.helpers import call
from tests.servers import Fault
from tests.tui.conftest import inspector_open, make_app, wait_ended, wait_pending, wait_until

SIZES = [pytest.param((120, 40), id="120x40"), pytest.param((100, 30), id="100x30")]
SMALL = pytest.param((80, 24), id="80x24")  # the smallest terminal people use: nothing may trail the footer
THOUGHT_1 = "<think>The question is about notes; the lookup tool has them. I will look up 'life'.</think>"
THOUGHT_2 = ("<think>The notes say the answer is 42 and cite source [1]. That is enough evidence, but let me "
             "double-check the wording before I write the answer, so that nothing is overstated ")  # the space: a last word waits (stream redaction)


def _app(chat_server, tmp_path, **kw):
    # frozen clocks: the header's elapsed time and the calls' durations do not depend on the machine's load
    app, _ = make_app(chat_server, tmp_path, elapsed=lambda: 42.0, clock=lambda: 1000.0, **kw)
    return app


async def _settle(pilot):
    await pilot.pause(0.3)
    pilot.app.clear_notifications()
    await pilot.pause(0.1)


@pytest.mark.parametrize("size", SIZES)
def test_running(snap_compare, chat_server, tmp_path, fixed_date, size):
    chat_server.script(THOUGHT_1 + call("lookup", topic="life"),
                       Fault(hang_after_chunks=1000, content=THOUGHT_2))
    app = _app(chat_server, tmp_path)

    async def run_before(pilot):
        await wait_pending(pilot, app)
        await pilot.press("a")
        await wait_until(pilot, lambda: 2 in app.session.steps and "overstated" in app.session.steps[2].live_thought)
        await _settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES + [SMALL])
def test_awaiting_approval(snap_compare, chat_server, tmp_path, fixed_date, size):
    chat_server.script(THOUGHT_1 + call("lookup", topic="life"))
    app = _app(chat_server, tmp_path)

    async def run_before(pilot):
        await wait_pending(pilot, app)
        await _settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_paused_in_the_inspector(snap_compare, chat_server, tmp_path, fixed_date, size):
    chat_server.script(THOUGHT_1 + call("lookup", topic="life"))
    app = _app(chat_server, tmp_path, breakpoint=True, auto_approve=True)

    async def run_before(pilot):
        await wait_until(pilot, lambda: inspector_open(app))
        await pilot.press("c")
        await wait_until(pilot, lambda: inspector_open(app) and len(chat_server.requests) == 1)
        await _settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_ended_with_an_answer(snap_compare, chat_server, tmp_path, fixed_date, size):
    chat_server.script(THOUGHT_1 + call("lookup", topic="life"),
                       "<think>Enough.</think><answer>The answer is **42** [1].\n\n- It is in the notes.</answer>")
    app = _app(chat_server, tmp_path)

    async def run_before(pilot):
        await wait_pending(pilot, app)
        await pilot.press("a")
        await wait_ended(pilot, app)
        await _settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
