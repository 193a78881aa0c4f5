"""A random-looking value after a provider's name that the vendored rule sets know
(tui_agent.safety.providers): masked in the ways texts write it, left alone when it is a hash, a
dated version, words, a path or part of a URL."""

from __future__ import annotations

import pytest

from tests.unit.test_redaction_keywords import rand
from tui_agent.safety import providers
from tui_agent.safety.hygiene import REDACTED, redact
from tui_agent.safety.rule_sets import provider_names

TOKEN = rand(36)


def test_the_provider_names_come_from_the_vendored_rules_ids_and_keywords():
    names = provider_names()
    assert {"cloudmersive", "apitemplate", "kraken", "confluence", "mapbox"} <= names
    assert all(n.isalpha() and n == n.lower() for n in names)
    assert len(names) > 500


@pytest.mark.parametrize("template", [
    'apiTemplate := "{s}"',
    'cloudmersive: "{s}"',
    "confluence_a={s}",
    "kucoin {s} and more",
    "MAPBOX_SECRET_KEY {s}",
    "client = Cloudmersive('{s}')",
    "kraken_api_secret => '{s}'",
])
def test_a_random_value_after_a_provider_name_is_masked(template):
    text = template.format(s=TOKEN)
    out = redact(text, {})
    assert TOKEN not in out and REDACTED in out
    assert out.replace(REDACTED, TOKEN) == text  # only the value


@pytest.mark.parametrize("text", [
    "github 3f2a9c1d3f2a9c1d3f2a9c1d3f2a9c1d3f2a9c1d",  # a commit after a name: a hash
    '"anthropic_version": "bedrock-2023-05-31",',
    'MICROSOFT_365_COPILOT = "microsoft_365_copilot"',
    "anthropic-beta: token-counting-2024-11-01",
    'vsbase = r"Software\\Microsoft\\VisualStudio\\%0.1f" % version',
    "https://example.com/a?utm_source=mapbox&utm_medium=Link&utm_campaign=1000things2020",
    "b'postgres:x:101:102:PostgreSQL Server:/var/lib/pgsql:/bin/bash'",
    "see mapbox.com/docs/Ab12Cd34Ef56Gh78Ij90",
    f"monday {TOKEN}",  # an ordinary word that is also a provider's name
])
def test_a_provider_name_does_not_mask_what_is_not_a_key(text):
    assert redact(text, {}) == text


def test_each_value_after_a_provider_name_is_found_once_and_the_scan_goes_on_after_it():
    a, b = rand(30, 1), rand(30, 2)
    spans = list(providers.provider_spans(f"cloudmersive {a}\napitemplate: {b}\n"))
    assert [text for text in ((f"cloudmersive {a}\napitemplate: {b}\n")[s:e] for s, e, _ in spans)] == [a, b]
    assert {kind for _, _, kind in spans} == {"provider-name"}


def test_a_token_that_starts_with_a_provider_name_is_not_split_at_the_name():
    token = "confluence_" + rand(40, 3)  # a name that goes on past the tail is a token, not a name
    assert list(providers.provider_spans(f"value {token} here")) == []
