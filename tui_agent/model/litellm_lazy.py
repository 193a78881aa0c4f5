"""The one import of litellm, made on first use: :func:`litellm` returns the module, configured
(local cost map, no telemetry, no tokenizer downloads, unknown parameters dropped).

The adapter (``model.llm``) and the modules that read litellm's maps (``errors``, ``pricing``,
``endpoints``, ``routing``) call it; nothing else in the package imports litellm
(tests/unit/test_layout.py). Importing litellm costs seconds of CPU, so nothing calls this on the
way to the TUI's first frame.
"""

from __future__ import annotations

import os
from types import ModuleType

_litellm: ModuleType | None = None


def prepare_environment() -> None:
    """Settings litellm must see before import: local cost map, no tokenizer downloads."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("LITELLM_TELEMETRY", "False")


def litellm() -> ModuleType:
    """litellm, imported and configured the first time it is asked for."""
    global _litellm
    if _litellm is None:
        prepare_environment()
        import litellm as _mod

        _mod.disable_hf_tokenizer_download = True
        _mod.telemetry = False
        _mod.suppress_debug_info = True
        _mod.drop_params = True
        _litellm = _mod
    return _litellm
