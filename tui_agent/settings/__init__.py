"""Settings, declared once (``fields``), loaded in layers (``layers``), remembered (``saving``).

``tui_agent.config`` is the public entry and re-exports these names.
"""
