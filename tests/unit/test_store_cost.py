"""What makes the store cheaper keeps what it stores:

- the redaction memo: scrubbing an event masks exactly what redacting each of its strings (keys
  too) afresh does, for events full of secrets and repeated strings, and a secret that appears in
  the environment later is masked in a text already seen;
- ``batch_steps`` (eval): a step is committed whole when the next one starts, so a reader (or a
  process that finds this one killed) sees whole steps; the end of a run and a signal commit at once.
"""

from __future__ import annotations

import json

from tests.unit.test_redaction import FORMATS, SECRET
from tui_agent.safety import hygiene, redaction
from tui_agent.core.events import (
    ActionProposed, Decision, ModelCallEnded, ModelCallStarted, Notice, Observation, RunEnded, RunStarted,
)
from tui_agent.core.fold import fold
from tui_agent.session.store import SessionStatus, Store

ENV_SECRET = "Qw7rT2yU9iO4pA6s"


def fresh(value, environ):
    """The reference: every string (dict keys included) redacted on its own, with no memo."""
    if isinstance(value, str):
        return redaction._redact(value, redaction.secret_values(environ)) if value else value
    if isinstance(value, dict):
        return {fresh(k, environ): fresh(v, environ) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(fresh(v, environ) for v in value)
    return value


def secret_events(sid: str, steps: int) -> list:
    """A run whose events carry every credential format, secret-named assignments (in values and
    in dict keys) and the same strings again and again, as a real run's events do."""
    secrets = list(FORMATS.values())
    evs = [RunStarted(session_id=sid, question=f"why is {secrets[0]} here?", model="m",
                      settings={"api_key": secrets[1], f"password={SECRET}": "x", "model": "m"},
                      system_prompt="You are careful. " * 20)]
    for n in range(1, steps + 1):
        s = secrets[n % len(secrets)]
        args = {"query": [f"token {s}", "plain words", f'password = "{SECRET}"'], f"{s}": "as a key"}
        evs += [ModelCallStarted(session_id=sid, step=n, messages=[], message_tokens=[], prompt_tokens=10,
                                 threshold=1000, context_window=2000),
                ModelCallEnded(session_id=sid, step=n, text=f"<think>use {s}</think>", thought=f"use {s}",
                               prompt_tokens=10, completion_tokens=5),
                ActionProposed(session_id=sid, step=n, call_id=f"c{n}", tool="search", arguments=args),
                Decision(session_id=sid, step=n, call_id=f"c{n}", kind="auto", arguments=args),
                Observation(session_id=sid, step=n, call_id=f"c{n}", tool="search", arguments=args,
                            text="clean text", executed=True),
                Notice(session_id=sid, step=n, text=f"env value {ENV_SECRET} and {s}")]
    return evs


def test_scrubbing_an_event_masks_exactly_what_redacting_each_of_its_strings_does(monkeypatch):
    events = secret_events("s", len(FORMATS) + 3)
    for environ in ({}, {"MY_SERVICE_TOKEN": ENV_SECRET}, {}):  # the environment changes between passes
        for _ in range(2):  # the second pass is answered from the memo
            for e in events:
                fields = e.stored_dict()
                assert hygiene.scrub(fields, environ, controls=False) == fresh(fields, environ), e.type
    # and with os.environ, as the store redacts: a secret added to the environment after a text
    # was redacted is masked in that text the next time
    text = f"env value {ENV_SECRET}"
    monkeypatch.delenv("MY_SERVICE_TOKEN", raising=False)
    assert redaction.redact(text) == text
    monkeypatch.setenv("MY_SERVICE_TOKEN", ENV_SECRET)
    assert redaction.redact(text) == "env value [REDACTED]"


def test_stored_events_are_the_events_with_each_string_redacted(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_SERVICE_TOKEN", ENV_SECRET)
    events = secret_events("s", 12)
    for batch in (False, True):
        store = Store(tmp_path / str(batch), batch_steps=batch)
        store.create_session("s", "q", "m")
        for e in events:
            store.append(e)
        store.append(RunEnded(session_id="s", step=12, termination="answer"))
        stored = list(store.event_dicts("s"))[:-1]
        assert len(stored) == len(events)
        for e, data in zip(events, stored):
            fields = e.stored_dict()
            kept = {k: fields.pop(k) for k in e.clean_fields if k in fields}
            assert data == json.loads(json.dumps({**fresh(fields, None), **kept})), e.type
        assert ENV_SECRET not in json.dumps(stored) and SECRET not in json.dumps(stored)


def test_with_batch_steps_a_step_is_committed_whole_when_the_next_one_starts(tmp_path):
    store = Store(tmp_path, batch_steps=True)
    store.create_session("s", "q", "m")
    reader = Store(tmp_path)  # another connection: what a killed process would leave behind
    events = secret_events("s", 3)
    step_one = [e for e in events if e.step <= 1]
    for e in step_one:
        store.append(e)
    # run_started (step 0) was committed when step 1 began; step 1 is not whole yet
    assert [d["type"] for d in reader.event_dicts("s")] == ["run_started"]
    store.append(events[len(step_one)])  # step 2 starts
    assert [d["type"] for d in reader.event_dicts("s")] == [e.type for e in step_one]
    state = fold(reader.events("s"))
    assert state.step == 1 and state.tool_calls == 1 and not state.in_flight
    for e in events[len(step_one) + 1:]:
        store.append(e)
    store.append(RunEnded(session_id="s", step=3, termination="answer"))  # the end commits at once
    assert len(list(reader.event_dicts("s"))) == len(events) + 1
    assert reader.get_session("s").status == SessionStatus.ENDED


def test_a_signal_commits_the_step_in_progress_of_a_batched_store(tmp_path):
    store = Store(tmp_path, batch_steps=True)
    store.create_session("s", "q", "m")
    events = secret_events("s", 2)
    for e in events[:4]:  # run_started and part of step 1
        store.append(e)
    store.mark_interrupted("s")  # SIGTERM / SIGHUP: what was shown is saved
    reader = Store(tmp_path)
    assert [d["type"] for d in reader.event_dicts("s")] == [e.type for e in events[:4]]
    assert reader.get_session("s").status == SessionStatus.INTERRUPTED


def test_the_rule_sets_compile_in_a_background_thread_started_at_start_up():
    from tui_agent.safety import rule_sets

    rule_sets._compiled.cache_clear()
    thread = redaction.start_warm_up()  # the TUI, run and eval start this beside the model's import
    assert thread.daemon
    thread.join(120)
    assert rule_sets._compiled.cache_info().currsize == 1  # the first redaction finds them compiled


def test_a_batched_store_keeps_the_same_events_and_session_row_as_one_commit_per_event(tmp_path):
    """A step written in one statement (eval) numbers its events and sets the session's steps, time
    and end exactly as committing each event on its own (a run in the TUI) does."""
    events = secret_events("s", 4) + [RunEnded(session_id="s", step=4, termination="answer",
                                               result={"cost_usd": 0.5, "tool_calls": 4, "total_tokens": 90})]
    rows = {}
    for name, batch in (("each", False), ("step", True)):
        store = Store(tmp_path / name, batch_steps=batch)
        store.create_session("s", "q", "m")
        for e in events:
            store.append(e)
        reader = Store(tmp_path / name)  # another connection: what was committed
        row = reader.get_session("s")
        seqs = [s for (s,) in reader.conn.execute("SELECT seq FROM events WHERE session_id='s' ORDER BY seq")]
        rows[name] = (list(reader.event_dicts("s")), seqs, row.steps, row.updated, row.status, row.termination,
                      row.cost_usd, row.tool_calls, row.tokens)
    assert rows["step"] == rows["each"]
    assert rows["step"][1] == list(range(1, len(events) + 1)) and rows["step"][2] == 4
    assert rows["step"][3] == events[-1].ts and rows["step"][4] == SessionStatus.ENDED
