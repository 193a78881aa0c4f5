"""Calling the user when a decision waits: the bytes that ring, once per decision, and the
headless question ringing its terminal (never a pipe)."""

from __future__ import annotations

import asyncio
import io
import threading

from tui_agent.core.approval import Approve, ApprovalRequest
from tui_agent.app.attention import DecisionWatch, attention_sequence, desktop_sequence, waited_label
from tui_agent.cli.headless import TerminalApprover


def test_vte_terminals_get_osc_777_and_others_osc_9():
    assert desktop_sequence("tui-agent", "a call waits", {"VTE_VERSION": "7600", "TERM": "xterm-256color"}) == \
        "\x1b]777;notify;tui-agent;a call waits\x1b\\"
    assert desktop_sequence("tui-agent", "a call waits", {"TERM": "foot"}).startswith("\x1b]777;notify;")
    assert desktop_sequence("tui-agent", "a call waits", {"TERM": "xterm-256color"}) == \
        "\x1b]9;tui-agent: a call waits\x07"


def test_inside_tmux_the_notification_is_wrapped_for_passthrough():
    seq = desktop_sequence("tui-agent", "waits", {"TERM": "tmux-256color", "TMUX": "/tmp/tmux-1/default,1,0"})
    assert seq == "\x1bPtmux;\x1b\x1b]9;tui-agent: waits\x07\x1b\\"


def test_control_characters_from_a_model_cannot_end_the_sequence_early():
    # a tool call's arguments are the model's text: a BEL or ESC in them would end the OSC string
    # and let the rest reach the terminal as commands
    seq = desktop_sequence("tui-agent", 'search {"q": "x\x07\x1b]52;c;ZXZpbA==\x07"}', {"TERM": "xterm"})
    assert seq.count("\x07") == 1 and seq.count("\x1b") == 1 and seq.endswith("\x07")
    seq = desktop_sequence("t;itle", "a;b", {"VTE_VERSION": "1"})
    assert seq == "\x1b]777;notify;t,itle;a,b\x1b\\"  # ';' separates the fields of OSC 777


def test_the_notify_setting_chooses_bell_and_notification_bell_or_nothing():
    env = {"TERM": "xterm"}
    assert attention_sequence("all", "t", "b", env) == "\a\x1b]9;t: b\x07"
    assert attention_sequence("bell", "t", "b", env) == "\a"
    assert attention_sequence("off", "t", "b", env) == ""


def test_a_decision_is_due_once_after_it_has_waited_and_a_new_one_starts_again():
    now = [100.0]
    watch = DecisionWatch(10.0, clock=lambda: now[0])
    first, second = object(), object()
    watch.observe(first, "tool call", "search")
    now[0] += 9.5
    assert watch.due() is None and waited_label(watch.waited()) == "9s"
    now[0] += 1
    due = watch.due()
    assert due is not None and due.kind == "tool call"
    assert watch.due() is None  # once per decision
    watch.observe(first, "tool call", "search")  # the same one still waiting: not a new wait
    assert watch.due() is None
    watch.observe(second, "breakpoint", "paused")
    assert watch.waited() == 0 and watch.due() is None
    now[0] += 75
    assert watch.due() is not None and waited_label(watch.waited()) == "1m15s"
    watch.observe(None)
    assert watch.waited() is None and waited_label(watch.waited()) == ""


def _request() -> ApprovalRequest:
    return ApprovalRequest("c1", 1, "search", {"query": ["solar panels"]}, {})


class Terminal(io.StringIO):
    """The terminal the headless question is written to; ``rang`` is set when the bell is written."""

    def __init__(self, tty: bool = True) -> None:
        super().__init__()
        self.tty = tty
        self.rang = threading.Event()

    def isatty(self) -> bool:
        return self.tty

    def write(self, s: str) -> int:
        if "\a" in s:
            self.rang.set()
        return super().write(s)


class AnswerAfterBell(io.StringIO):
    """The user answers only once the terminal has rung (no race between two timers)."""

    def __init__(self, terminal: Terminal) -> None:
        super().__init__()
        self.terminal = terminal

    def readline(self, *args) -> str:
        assert self.terminal.rang.wait(30), "the terminal never rang"
        return "a\n"


async def test_a_headless_question_that_waits_rings_the_terminal_once():
    out = Terminal()
    approver = TerminalApprover(AnswerAfterBell(out), out, notify="all", notify_after_s=0,
                                env={"TERM": "xterm-256color"})
    decision = await approver.decide(_request())
    assert isinstance(decision, Approve)
    text = out.getvalue()
    assert text.count("\a") == 2  # the bell, and the OSC 9 string's terminator
    assert '\x1b]9;tui-agent: tool call waiting: search {"query": ["solar panels"]}\x07' in text


async def test_a_question_answered_before_notify_after_s_never_rings():
    out = Terminal()
    approver = TerminalApprover(io.StringIO("a\n"), out, notify="all", notify_after_s=30, env={"TERM": "xterm"})
    assert isinstance(await approver.decide(_request()), Approve)
    await asyncio.sleep(0)
    assert "\a" not in out.getvalue() and "\x1b" not in out.getvalue()


async def test_a_headless_question_never_rings_into_a_pipe_or_with_notify_off():
    for out, mode in ((Terminal(tty=False), "all"), (Terminal(), "off")):
        inp = io.StringIO("a\n")
        approver = TerminalApprover(inp, out, notify=mode, notify_after_s=0, env={"TERM": "xterm"})

        async def slow_read(prompt: str, inp=inp, out=out) -> str:
            out.write(prompt)
            await asyncio.sleep(0.2)  # the ring (due at 0 s) had its chance: it must not come
            return inp.readline().strip()

        approver._read = slow_read  # type: ignore[method-assign]
        assert isinstance(await approver.decide(_request()), Approve)
        assert "\a" not in out.getvalue(), mode
