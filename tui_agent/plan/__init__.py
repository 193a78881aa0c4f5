"""Plan mode: a research plan written by one model call before the first tool call, decided once
by the person (approve, edit, replan with feedback, skip), then used as an approval policy, as the
run's gates and as the shape of the answer; and clarifying questions asked before it.

The plan's data lives in ``core/`` (the ground floor): ``core.plan_schema`` (the JSON schema, its
dataclasses, the lenient reading of a model's reply), ``core.plan_state`` (what the fold keeps),
``core.fold_plan`` (the plan events folded), ``core.plan_progress`` (each sub-question's status from
the answer's sections) and ``core.plan_report`` (the plan as Markdown and plain lines). Here:

- ``requests``: what the engine asks through the ``Approver`` seam (the plan, clarifying questions)
  and the typed answers;
- ``policy``: which calls the approved plan approves, and the gates its budget sets;
- ``prompts``: the planner's and the clarifier's prompts, the plan as the research model reads it
  (the planner puts that text on the events: the fold appends what ``PlanDecided`` and
  ``ClarifyAnswered`` carry);
- ``planner``: the engine's step before the loop; ``terminal``: the headless questions.

No front-end imports.
"""
