"""Redirects to anything but a valid http(s) URL, served by a loopback server: each is refused
with a message that names the target, nothing after the redirect is requested, and nothing
escapes as another exception."""

from __future__ import annotations

import pytest

from tui_agent.cli import read as read_cli
from tui_agent.config import Settings
from tui_agent.web.net import FetchError, GuardError, fetch, make_client


def settings_for(**overrides) -> Settings:
    base = dict(allow_private_urls=True, visit_connect_timeout_s=10.0, visit_read_timeout_s=10.0,
                visit_total_timeout_s=10.0)
    base.update(overrides)
    return Settings(**base)


async def refusal_of(page_server, location: str, status: int = 302) -> FetchError:
    start = page_server.redirect("/start", location, status=status)
    async with make_client(settings_for()) as client:
        with pytest.raises(FetchError) as info:
            await fetch(client, start, settings_for())
    assert page_server.hits == ["/start"]  # the target was never requested
    return info.value


OTHER_SCHEMES = ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "file:///etc/passwd",
                 "ftp://example.com/x", "gopher://example.com/"]


@pytest.mark.parametrize("location", OTHER_SCHEMES)
async def test_a_redirect_to_another_scheme_is_refused_naming_it(page_server, location):
    error = await refusal_of(page_server, location)
    assert isinstance(error, GuardError)  # the guard's scheme rule: a refusal, not a failure
    scheme = location.split(":", 1)[0]
    assert error.message == (f"Refused to follow the redirect from {page_server.url_for('/start')} to '{location}': "
                             f"only http and https URLs can be visited ({scheme}: is not allowed).")


MALFORMED = {
    "http:\\\\127.0.0.1/": "it contains a backslash or a control character",
    "\\\\evil.example/x": "it contains a backslash or a control character",
    "http://example.com/a\\b": "it contains a backslash or a control character",
    "http://[::1/": "Invalid port",
    "http://example.com:99999/": "port 99999 is out of range",
    "http://example.com:abc/": "Invalid port",
    "http://127.0.0.1:0/": "port 0 is out of range",
    "https:///path": "no host name",
    "http://": "no host name",
    "//": "no host name",
    "http://:80/": "no host name",
    "http://user@/": "no host name",
}


@pytest.mark.parametrize("location", list(MALFORMED))
async def test_a_redirect_to_a_malformed_url_is_refused_naming_it(page_server, location):
    error = await refusal_of(page_server, location)
    assert error.kind == "redirect"
    assert error.message.startswith(f"Refused to follow the redirect from {page_server.url_for('/start')} to "
                                    f"'{location}': not a valid http(s) URL (")
    assert MALFORMED[location] in error.message


@pytest.mark.parametrize("location, shown", [
    ("http://a..b/", "http://a..b/"), ("http://%zz/", "http://%zz/"), ("http://xn--/", "http://xn--/"),
    ("http://-_-.example!/", "http://-_-.example!/"),
    ("http://exa mple.com/", "http://exa%20mple.com/"),  # as httpx spells the joined URL
])
async def test_a_redirect_to_a_malformed_host_name_is_refused_by_the_guard(page_server, location, shown):
    error = await refusal_of(page_server, location)
    assert isinstance(error, GuardError)
    assert error.message.startswith(f"Refused to fetch '{shown}': ")
    assert "not a valid" in error.message


@pytest.mark.parametrize("location", ["", "   "])
async def test_a_redirect_with_an_empty_location_is_refused(page_server, location):
    error = await refusal_of(page_server, location, status=301)
    assert error.kind == "redirect"
    assert error.message == (f"{page_server.url_for('/start')} answered HTTP 301 with an empty Location header: "
                             f"there is no redirect target to follow.")


async def test_valid_redirects_still_follow_with_fragments_dropped_and_spaces_encoded(page_server):
    page_server.add("/my%20file", "<p>arrived</p>")
    page_server.redirect("/two", "my file#section", status=308)  # relative to /two, a space as sent
    start = page_server.redirect("/one", page_server.url_for("/two") + "#top", status=303)
    async with make_client(settings_for()) as client:
        result = await fetch(client, start, settings_for())
    assert result.body == b"<p>arrived</p>"
    assert result.chain == [start, page_server.url_for("/two"), page_server.url_for("/my%20file")]


async def test_the_model_reads_the_refusal_as_the_pages_observation(page_server):
    start = page_server.redirect("/start", "javascript:alert(document.cookie)")
    out, err, code = await read_cli.read(start, settings_for())
    assert (out, code) == ("", 1)
    assert err == (f"[not read] {start}\nRefused to follow the redirect from {start} to "
                   f"'javascript:alert(document.cookie)': only http and https URLs can be visited "
                   f"(javascript: is not allowed).")
    bad = page_server.redirect("/bad", "http:\\\\127.0.0.1/admin")
    out, err, code = await read_cli.read(bad, settings_for())
    assert (out, code) == ("", 1)
    assert err.startswith(f"[not read] {bad}\nRefused to follow the redirect from {bad} to "
                          f"'http:\\\\127.0.0.1/admin': not a valid http(s) URL")
