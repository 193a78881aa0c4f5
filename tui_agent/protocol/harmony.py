"""gpt-oss "harmony" text that reached the content because the server did not parse it.

``<|channel|>analysis<|message|>…<|end|>`` is reasoning, ``<|channel|>final<|message|>…`` the answer,
``<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`` a tool call; a
server that decodes the special tokens to nothing leaves "analysis…assistantfinal…", read alike. The
reasoning is read as thought and a final channel as the answer; a harmony tool call is not run (it is
named in the correction, like the other foreign formats).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CHANNEL = re.compile(r"<\|channel\|>")
_SEGMENT = re.compile(
    r"<\|channel\|>\s*(?P<channel>[A-Za-z_]+)(?P<header>[^<]*(?:<\|constrain\|>[^<]*)?)<\|message\|>"
    r"(?P<body>.*?)(?P<end><\|end\|>|<\|call\|>|<\|return\|>|(?=<\|start\|>)|(?=<\|channel\|>)|\Z)",
    re.S,
)
_RECIPIENT = re.compile(r"\bto=(?:functions\.)?([A-Za-z_][\w.\-]*)")
# The same with the special tokens decoded to nothing by the server: "analysis…assistantfinal…".
_BARE = re.compile(r"^\s*analysis(?P<analysis>.*?)assistantfinal(?P<final>.*)$", re.S)
_NOISE = re.compile(r"<\|start\|>\s*assistant|<\|start\|>|<\|end\|>|<\|return\|>|<\|call\|>")


@dataclass
class Harmony:
    thought: str = ""
    final: str | None = None
    calls: list[str] = field(default_factory=list)  # the tools that harmony calls named


def read_harmony(text: str) -> Harmony | None:
    """The harmony segments of ``text``, or None when it holds none."""
    if not CHANNEL.search(text):
        bare = _BARE.match(text)
        if bare is None:
            return None
        return Harmony(thought=bare.group("analysis").strip(), final=bare.group("final").strip())
    found = Harmony()
    thoughts: list[str] = []
    any_segment = False
    for m in _SEGMENT.finditer(text):
        any_segment = True
        channel, header, body = m.group("channel").lower(), m.group("header"), m.group("body").strip()
        recipient = _RECIPIENT.search(header)
        if recipient:
            found.calls.append(recipient.group(1))
        elif channel == "final":
            found.final = body if found.final is None else found.final + "\n\n" + body
        elif body:
            thoughts.append(body)
    if not any_segment:
        return None
    found.thought = "\n\n".join(_NOISE.sub("", t).strip() for t in thoughts if t)
    return found
