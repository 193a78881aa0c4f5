"""The kinds every layer shares: how a run ended, what a model call is for, how a decision and a
tool call went, why the engine corrected the model, a citation's verdict, a notice's level.

The bottom of the package: it imports nothing of tui_agent, so the protocol, the model adapter,
the tools, the engine, the session store and the front ends all use the same enums. Each is a
``StrEnum``: stored as its plain string value and equal to it, so an old database reads back
unchanged.
"""

from __future__ import annotations

from enum import StrEnum


class Termination(StrEnum):
    """How a run ended: exactly one per run."""

    ANSWER = "answer"
    TOKEN_LIMIT = "token_limit"
    CALL_LIMIT = "call_limit"
    TIME_LIMIT = "time_limit"
    BUDGET_LIMIT = "budget_limit"
    USER_SUBMIT = "user_submit"
    FORMAT_ERROR = "format_error"
    MODEL_ERROR = "model_error"
    CANCELLED = "cancelled"


TERMINATIONS = tuple(t.value for t in Termination)


class Purpose(StrEnum):
    """What a model call is for."""

    RESEARCH = "research"  # a step of the loop (counted against max_calls)
    FORCED = "forced"  # the forced answer (not counted)
    EXTRACT = "extract"  # a tool's sub-call (goal-directed extraction)
    VERIFY = "verify"  # a citation check (sessions verify)
    COMPACT = "compact"  # a context compaction: a state note, a proposed summary, an observation's facts
    PLAN = "plan"  # plan mode: the plan, or the clarifying questions, before the first research call
    FACTS = "facts"  # team research: one page pressed into facts for a sub-question
    SECTION = "section"  # team research: one sub-question's section written from its facts


class DecisionKind(StrEnum):
    """The answer to an approval request."""

    APPROVED = "approved"
    EDITED = "edited"
    AUTO = "auto"  # approved by policy (auto mode, always-allow, --yes) without asking
    PLAN = "plan"  # approved without asking because the approved plan covers it
    POLICY = "policy"  # approved without asking by an allow of the configuration's tool policies
    REJECTED = "rejected"
    SUBMIT = "submit"  # Submit now instead of a decision


class ObservationStatus(StrEnum):
    """How a tool call fared. FAILED counts towards disabling a tool; the others do not."""

    OK = "ok"
    FAILED = "failed"  # network error, timeout, server error
    HTTP_ERROR = "http_error"  # the server answered 4xx (a wrong URL, no access): the model's to fix
    REFUSED = "refused"  # the network guard refused every URL
    INVALID = "invalid"  # unknown tool or arguments that do not fit the schema
    REJECTED = "rejected"  # the user said no
    DUPLICATE = "duplicate"  # the same call was made before
    DISABLED = "disabled"  # the tool failed too often
    REPLAYED = "replayed"  # a fork's recorded observation, not run again
    CANCELLED = "cancelled"  # stopped while it ran (Submit now): no result
    INTERRUPTED = "interrupted"  # started before the session stopped, result never saved: it may have run
    UNSAVED = "unsaved"  # not run: the session could not save its start (saving had stopped)


class CorrectionReason(StrEnum):
    """Why the engine added a user message to steer the model (the parser's problems, and more)."""

    NO_ACTION = "no_action"  # neither a tool call nor an answer: nothing recognisable
    EMPTY = "empty"  # nothing at all
    UNCLOSED_THINK = "unclosed_think"  # thinking never closed, and no action after it
    ACTION_IN_THINK = "action_in_think"  # a call or an answer only inside the thinking
    FOREIGN_FORMAT = "foreign_format"  # a tool call in another protocol's format
    CUT_REPLY = "cut_reply"  # the reply was cut by the length limit
    REFUSED_CALL = "refused_call"  # the provider refused the model's tool call (Groq's tool_use_failed)
    ANSWER_WITHOUT_EVIDENCE = "answer_without_evidence"  # evidence guard


# Corrections that count towards max_format_errors (all but the evidence guard).
FORMAT_ERROR_REASONS = frozenset(set(CorrectionReason) - {CorrectionReason.ANSWER_WITHOUT_EVIDENCE})


class Verdict(StrEnum):
    """A citation check's verdict on one claim of the answer."""

    SUPPORTED = "supported"
    UNSUPPORTED = "unsupported"
    UNCLEAR = "unclear"  # the verifier could not tell, or did not answer in the expected form


class NoticeLevel(StrEnum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


class ContextEditKind(StrEnum):
    """What a person (or the facts policy) did to one item of the context."""

    DROP = "drop"  # replaced by a one-line stub saying what was there
    PIN = "pin"  # no policy may cut or summarise it
    UNPIN = "unpin"
    SUMMARISE = "summarise"  # replaced by a (given) summary
    RESTORE = "restore"  # undoes drop or summarise


class ContextItemKind(StrEnum):
    """One row of the context view: what an item of the next prompt is."""

    SYSTEM = "system"
    QUESTION = "question"
    NOTE = "note"  # the state note written by the summarise policy
    THOUGHT = "thought"
    CALL = "call"
    OBSERVATION = "observation"
    CORRECTION = "correction"


class ContextPolicy(StrEnum):
    """A policy at the token gate (``context_policy`` is a comma list of them, applied in order)."""

    NONE = "none"  # the forced answer at the gate (the behaviour before policies)
    TRUNCATE = "truncate"  # keep the last context_keep_rounds rounds (fewer to fit the gate); older become stubs
    SUMMARISE = "summarise"  # older rounds become a state note at the top
    FACTS = "facts"  # each observation enters the context as the facts it holds for the question


class ToolPolicy(StrEnum):
    """A tool's approval policy from the ``tool_policies`` setting (by name or glob)."""

    ASK = "ask"  # the default: the run's approval (a person, auto mode, always-approve) decides
    ALLOW = "allow"  # run without asking
    DENY = "deny"  # never run, not even with --yes or auto mode
class PlanMode(StrEnum):
    """The ``plan`` setting: no plan, a plan decided by the person, or clarifying questions first."""

    OFF = "off"
    ASK = "ask"
    CLARIFY = "clarify"


class PlanDecisionKind(StrEnum):
    """What the person did with a proposed plan."""

    APPROVED = "approved"
    EDITED = "edited"  # approved as the person edited it
    REPLAN = "replan"  # asked for another plan, with feedback
    SKIPPED = "skipped"  # no plan: research as without plan mode


class PlanStatus(StrEnum):
    """A sub-question's progress against the answer."""

    OPEN = "open"  # no answer yet
    ANSWERED = "answered"  # its section cites a source and meets the floor
    NEEDS_REVIEW = "needs review"  # no section, no citation, or thinner than its acceptance asks


class AgentStatus(StrEnum):
    """A team research's sub-agent, as its pane line and ``--json`` show it."""

    QUEUED = "queued"  # waits for a free slot (team_concurrency)
    RUNNING = "running"
    WAITING = "waiting"  # one of its calls waits for a person's decision
    DONE = "done"  # it answered (also forced, by a limit or Submit now)
    NEEDS_REVIEW = "needs review"  # done, but its section misses its acceptance
    FAILED = "failed"  # its model failed, it was stopped, or the team budget ran out before it started


class SectionStatus(StrEnum):
    """A team research's section for one sub-question."""

    ANSWERED = "answered"
    NEEDS_REVIEW = "needs review"  # no fact, no source, or fewer sources than its acceptance names
    INCOMPLETE = "incomplete"  # its agent failed or was stopped (the note says why)
