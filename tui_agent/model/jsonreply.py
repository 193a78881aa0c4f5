"""One JSON object from a model's reply, read tolerantly: for the sub-calls that ask for one
(goal-directed extraction, the citation check).

Models wrap the object in reasoning (``<think>`` blocks, or a closing ``</think>`` whose opening
the server swallowed), code fences and prose, write raw newlines inside strings, and slip into
JSON5 (single quotes, trailing commas). :func:`json_object` reads through all of that.
"""

from __future__ import annotations

import json
import re
from typing import Any

_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json5?|JSON)?\s*\n?(.*?)```", re.DOTALL)


def json_object(raw: str | None) -> dict[str, Any] | None:
    """The JSON object in a reply (keys lower-cased and stripped), or None when there is none."""
    text = _THINK_BLOCK.sub("", raw or "")
    if "</think>" in text.lower():
        text = text[text.lower().rindex("</think>") + len("</think>"):]
    fenced = _FENCE.search(text)
    if fenced and "{" in fenced.group(1):
        text = fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    blob = text[start:end + 1]
    obj: Any = None
    try:
        obj = json.loads(blob, strict=False)
    except ValueError:
        try:
            import json5

            obj = json5.loads(blob)
        except Exception:
            return None
    if not isinstance(obj, dict):
        return None
    return {str(k).strip().lower(): v for k, v in obj.items()}
