"""The model seam: the types a model call returns (:mod:`.types`), the :class:`Model` Protocol the
engine takes (:mod:`.protocol`) and an in-memory scripted model for tests (:mod:`.scripted`).
The litellm adapter (``tui_agent.model.llm.LLM``) is one implementation of the Protocol."""

from tui_agent.model.protocol import DeltaCallback, Model, RetryCallback
from tui_agent.model.types import ModelError, Reply, RetryInfo

__all__ = ["DeltaCallback", "Model", "ModelError", "Reply", "RetryCallback", "RetryInfo"]
