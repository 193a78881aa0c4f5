"""The context of the next model call, seen and steered.

- :mod:`.budgets`: token budgets and the one cut (one note format for every "cut to fit" note);
- :mod:`.items`: the context's items (stable targets such as ``obs:c3``), the per-item overrides
  the fold keeps (drop, pin, summarise) and the prompt built from the fold's state with them;
- :mod:`.policies`: what happens at the token gate (``context_policy``: truncate, summarise,
  facts) and the model calls they make;
- :mod:`.view`: ``context_rows(state, settings)``, one row per item, for the context view.

Nothing here imports the engine or a front end; the session fold imports :mod:`.items`.
"""
