"""The team pane's lines (widgets/team_pane.py): what each agent's line says."""

from tui_agent.kinds import AgentStatus
from tui_agent.widgets.team_pane import WAITING_MARK, AgentLine, line_text


def test_a_waiting_agent_is_marked_and_says_how_long_it_has_waited():
    text = line_text(AgentLine(2, "When did the Beta bridge open?", AgentStatus.WAITING, 1234, waited_s=12.7))
    assert text.startswith(WAITING_MARK + " 2. ") and "waiting for you 12s" in text and "1.2k tok" in text


def test_other_agents_are_unmarked_and_a_long_sub_question_is_cut():
    text = line_text(AgentLine(1, "How tall is the Alpha tower, measured from its lowest foundation?",
                               AgentStatus.RUNNING, 300))
    assert not text.startswith(WAITING_MARK) and "…" in text and "· running · 300 tok" in text


def test_a_failed_agent_says_why():
    assert "failed: stopped by you" in line_text(AgentLine(3, "q", AgentStatus.FAILED, reason="stopped by you"))
