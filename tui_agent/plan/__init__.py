"""Plan mode: a research plan written by one model call before the first tool call, decided once
by the person (approve, edit, replan with feedback, skip), then used as an approval policy, as the
run's gates and as the shape of the answer; and clarifying questions asked before it.

- ``schema``: the plan's JSON schema, its dataclasses, the lenient reading of a model's reply;
- ``requests``: what the engine asks through the ``Approver`` seam (the plan, clarifying questions)
  and the typed answers;
- ``state``: what the fold keeps (``session.fold_plan`` folds the plan events into it);
- ``policy``: which calls the approved plan approves, and the gates its budget sets;
- ``progress``: each sub-question's status from the answer's sections;
- ``prompts``: the planner's and the clarifier's prompts, the plan as the research model reads it;
- ``planner``: the engine's step before the loop; ``terminal``: the headless questions.

No front-end imports.
"""
