"""The TUI's side of a team research (issue 29 item 7), held by the app (``app.team``).

When team mode is on (setting ``team``; **t** toggles it for the next question) ``research`` builds
the run's ``TeamResearch`` (``agent.runner.Run(research=…)``, as ``cli/run.py`` does headless):
its approvals go through the app's run handle (one at a time, each naming its agent), its agents'
events come back as ``TeamMessage``s posted by one ``EventBridge`` per agent (stream deltas
batched as for the main run), and its status changes as ``TeamMessage(changed=True)``. Nothing here
runs on the run's thread but the bridges' ``post``: every fold and every widget is on the app's.

Per agent a ``RunHandle`` holds its state folded on the app's thread (its run: the agent's own
``Run``), so the agent's view (``screens/agent_screen.py``) is the main screen's widgets driven by
that handle. The team pane (``widgets/team_pane.py``) lists the agents on the main screen.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

from textual.css.query import NoMatches
from textual.message import Message

from tui_agent.agent.handle import RunHandle
from tui_agent.app.bridge import STREAM_FLUSH_S, EngineEvent, EventBridge, RunMessage, StreamText
from tui_agent.core import fold
from tui_agent.core.events import RunStarted
from tui_agent.kinds import AgentStatus
from tui_agent.widgets.effects import Region

if TYPE_CHECKING:
    from tui_agent.agent.run_sink import Request
    from tui_agent.app.application import ResearchApp
    from tui_agent.config import Settings
    from tui_agent.core.state import SessionState
    from tui_agent.screens.agent_screen import AgentScreen
    from tui_agent.team import TeamResearch
    from tui_agent.tools.base import ToolRegistry
    from tui_agent.widgets.team_pane import AgentLine, TeamPane

# How often the team pane's "waiting for you Ns" is refreshed (seconds).
TEAM_TICK_S = 1.0


class TeamMessage(Message):
    """From a team's run thread: agent ``number``'s event or stream text (``inner``), or its
    status changed (``inner`` None); ``front`` is the tab's TeamFront the team belongs to."""

    def __init__(self, front: "TeamFront", number: int, inner: RunMessage | None = None) -> None:
        super().__init__()
        self.front = front
        self.number = number
        self.inner = inner


class AgentBridge(EventBridge):
    """One agent's follower: its messages are posted wrapped as ``TeamMessage(number, …)``."""

    def __init__(self, post: Callable[[Message], object], front: "TeamFront", number: int) -> None:
        super().__init__(lambda m: post(TeamMessage(front, number, m)))  # type: ignore[arg-type]
        self.number = number


class TeamFront:
    """One tab's team: ``handle`` is that tab's run (its approvals, its activity). What it draws
    (the pane, an agent's view) is drawn only while its tab is shown (``app.team is self``)."""

    def __init__(self, app: ResearchApp, handle: RunHandle) -> None:
        self.app = app
        self.handle = handle
        self.team: TeamResearch | None = None
        self.handles: dict[int, RunHandle] = {}  # per agent: its state, folded on the app's thread
        self.bridges: dict[int, AgentBridge] = {}
        self.screen: AgentScreen | None = None  # the agent's view open now
        self.tools: Callable[[], ToolRegistry | None] | None = None  # tests: a registry per agent
        self._timers = False

    # -- a run -----------------------------------------------------------------------------------------
    def research(self, settings: Settings, resumed: SessionState | None = None,
                 tracing: Any = None) -> TeamResearch | None:
        """The run's team research when team mode is on, or when the session ``resumed`` is a team's
        (plan mode turns on as 'ask' when off), else None. ``tracing`` (``--otel``) follows every agent."""
        self.team, self.handles, self.bridges = None, {}, {}
        self.tracing = tracing
        self._remove_pane()
        if not (settings.team or (resumed is not None and resumed.team.active)):
            return None
        from tui_agent.team import TeamResearch

        app = self.app
        if settings.plan == "off":
            settings.plan = "ask"
        tools = self.tools or ((lambda: app.tools) if app.tools is not None else None)
        self.team = TeamResearch(settings, store=app.store, approver=self.handle.approver, llm=getattr(app, "llm", None),
                                 tools=tools, listeners=self._listeners,
                                 changed=lambda h: app.post_message(TeamMessage(self, h.number)), serial_approvals=True)
        if not self._timers:
            self._timers = True
            app.set_interval(STREAM_FLUSH_S, self.flush, name="team-stream-flush")
            app.set_interval(TEAM_TICK_S, self.refresh_pane, name="team-clock")
            app.main.regions.subscribe({Region.TEAM}, lambda _e: self.refresh_pane())
            self.handle.on_decided(self._decided)
        return self.team

    def _listeners(self, number: int) -> list:
        """Called on the run's thread as agent ``number``'s run is made."""
        bridge = self.bridges[number] = AgentBridge(self.app.post_message, self, number)
        tracing = getattr(self, "tracing", None)
        return [bridge, *(tracing.agent_listeners(number) if tracing is not None else [])]

    def flush(self) -> None:
        for bridge in list(self.bridges.values()):
            bridge.flush()

    @property
    def running(self) -> bool:
        """A team research of the app's run has agents and the run goes on."""
        return self.team is not None and bool(self.team.agents) and self.handle.active

    # -- what comes from the run ---------------------------------------------------------------------
    def on_message(self, message: TeamMessage) -> None:
        try:
            self._on_message(message)
        except NoMatches:  # the app is closing and its widgets are gone; the states are kept
            pass

    def _on_message(self, message: TeamMessage) -> None:
        n, inner = message.number, message.inner
        if inner is None:
            self.refresh_pane()
            return
        if n not in self.bridges:  # a message of an earlier run's team, after a new run began
            return
        h = self._handle(n)
        screen = self.screen if self.screen is not None and self.screen.number == n and self.screen.is_attached else None
        match inner:
            case EngineEvent():
                h.apply(inner.event)
                if isinstance(inner.event, RunStarted):
                    h.started()
                if screen is not None:
                    screen.show_event(inner.event)
            case StreamText():
                pieces = h.stream(inner.step, inner.text, inner.reasoning)
                if screen is not None:
                    screen.on_stream(inner.step, pieces)
                return  # streamed text changes no pane line (tokens come with the call's end)
        self.refresh_pane()

    def _handle(self, n: int) -> RunHandle:
        h = self.handles.get(n)
        agent = self.agent(n)
        if h is None:
            child = agent.child_id if agent is not None else ""
            question = agent.question if agent is not None else ""
            state = fold.new_state(child, question, self.app.settings.model or "")
            h = self.handles[n] = RunHandle(self.bridges[n], state)
        if agent is not None and h.run is None:
            h.run = agent.run
        return h

    def agent(self, n: int):
        agents = self.team.agents if self.team is not None else []
        return agents[n - 1] if 0 < n <= len(agents) else None

    # -- the pane ------------------------------------------------------------------------------------
    def lines(self) -> list[AgentLine]:
        from tui_agent.widgets.team_pane import AgentLine  # not on the way to the first frame

        out = []
        now = time.monotonic()  # the run loop's clock (asyncio's loop time is monotonic)
        for a in (self.team.agents if self.team is not None else []):
            h = self.handles.get(a.number)
            tokens = h.state.total_tokens if h is not None else 0
            since = a.waiting_since
            out.append(AgentLine(a.number, a.question, a.status, tokens,
                                 max(0.0, now - since) if since is not None and a.status == AgentStatus.WAITING else None,
                                 a.reason))
        return out

    def pane(self) -> TeamPane | None:
        main = self.app.main
        return main.query_one_optional("#team") if main is not None and main.is_attached else None

    @property
    def shown(self) -> bool:
        """Its tab is the one shown: only then does it draw."""
        return getattr(self.app, "team", None) is self

    def refresh_pane(self) -> None:
        if not self.shown:
            return
        lines = self.lines()
        if not lines:
            if (pane := self.pane()) is not None:  # another tab's team pane: this tab has no team
                pane.remove()
            return
        pane = self.pane()
        if pane is None:
            main = self.app.main
            if main is None or not main.ready.is_set():
                return
            from tui_agent.widgets.team_pane import TeamPane

            pane = TeamPane(id="team")
            main.query_one("#right").mount(pane, before=0)
        pane.show(lines)

    def _remove_pane(self) -> None:
        if self.shown and (pane := self.pane()) is not None:
            pane.remove()

    def focused(self) -> int | None:
        """The agent a choice is about: the open agent view's, else the pane's highlighted line."""
        if self.screen is not None and self.screen is self.app.screen:
            return self.screen.number
        pane = self.pane()
        return pane.focused_agent if pane is not None else None

    # -- an agent's view -------------------------------------------------------------------------------
    def open(self, n: int) -> None:
        """Agent ``n``'s thought, action and observation panes, gauge and context view."""
        from tui_agent.screens.agent_screen import AgentScreen

        agent = self.agent(n)
        if agent is None:
            return
        h = self._handle(n) if n in self.bridges else None
        if h is None:  # queued: nothing to show yet
            self.app.notify(f"Agent {n} has not started yet (queued).", title="Team")
            return
        app = self.app
        self.screen = AgentScreen(n, agent.label, h, app.settings.model or "", clock=app.clock,
                                  lean_compositor=app.settings.lean_compositor)
        app.push_screen(self.screen)
        req = self.handle.pending
        if req is not None and getattr(req, "agent", "") == agent.label:
            self.screen.call_after_refresh(self.screen.show_asked, req)

    def back(self) -> None:
        """Back to the team view (the main screen)."""
        if self.screen is not None and self.screen is self.app.screen:
            self.app.pop_screen()
        self.screen = None

    # -- approvals (the app's handle decides: each request names its agent) ---------------------------
    def asked(self, req: Request) -> None:
        screen = self.screen
        if screen is not None and screen.is_attached and self.handle.pending is req and screen.label == getattr(req, "agent", ""):
            screen.show_asked(req)
        self.refresh_pane()

    def _decided(self) -> None:
        if self.screen is not None and self.screen.is_attached:
            self.screen.clear_pending()
            self.screen.refresh_bindings()

    # -- Submit now, stop --------------------------------------------------------------------------------
    def choose(self, what: str) -> bool:
        """Submit now (``what`` "submit") or stop ("stop") on a running team: asks focused agent or
        all agents. False when no team runs (the caller does its usual thing)."""
        if not self.running:
            return False
        from tui_agent.screens.team_choice import TeamChoiceScreen

        n = self.focused()
        agent = self.agent(n) if n is not None else None
        self.app.push_screen(TeamChoiceScreen(what, agent.label if agent is not None else None),
                             lambda choice: self.chosen(what, n, choice))
        return True

    def chosen(self, what: str, n: int | None, choice: str | None) -> None:
        team = self.team
        if team is None or choice is None:
            return
        agent = self.agent(n) if n is not None else None
        if choice == "one" and agent is not None:
            agent.submit_now() if what == "submit" else agent.stop()
            verb = "answers now" if what == "submit" else "stops"
            self.app.notify(f"{agent.label} {verb}.", title="Submit now" if what == "submit" else "Stop")
        elif choice == "all":
            team.submit_all() if what == "submit" else team.stop_all()
            verb = "answers now" if what == "submit" else "stops"
            self.app.notify(f"Every agent {verb}.", title="Submit now" if what == "submit" else "Stop")

    def toggle_mode(self) -> None:
        app = self.app
        app.settings.team = not app.settings.team
        state = "on" if app.settings.team else "off"
        app.notify(f"Team mode {state}: from the next question on"
                   + (" (plan mode asks for the plan first)" if app.settings.team else ""), title="Team mode")
