"""links.absolute is urljoin, faster: the links of a page's Markdown must not change with it."""

from urllib.parse import urljoin

import pytest

from tui_agent.web.links import absolute

BASES = [
    "http://example.com/dir/page.html?q=1#top",
    "https://example.com",
    "HTTPS://User@Example.com:8443/a/b/",
    "http://[::1]:8080/x",
    "ftp://example.com/pub/",
    "file:///tmp/page.html",
    "example.com/no-scheme",
]
HREFS = [
    # a path from the root, with and without query and fragment
    "/", "/a/b", "/a/b/", "/a?x=1", "/a?", "/a#", "/a?#f", "/a#f?x", "/a?x#", "/a?x?y#f#g", "/?", "/#",
    # dot segments and parameters, which urljoin resolves or splits
    "/a/./b", "/a/../b", "/..", "/.", "/a/..", "/.well-known/x", "/.../x", "/a;p", "/a;p/b", "/a;", "/a?x;y",
    # full URLs: same and other scheme, odd hosts
    "http://other.org", "http://other.org/", "http://other.org/a/../b", "http://other.org?", "http://other.org#",
    "https://other.org/p?q#f", "https://other.org:99/p;x", "http://user:pw@other.org/p", "http:///p",
    "https:///p", "HTTP://Other.org/P", "http://[::1]/p", "http://[::1/p", "http://ex\u2100mple.org/p",
    "http://exämple.org/p", "http://other.org/a b", "http://other.org/\u00e9",
    # what goes to urljoin itself
    "//cdn.other.org/x", "page.html", "../up", "./here", "?only=query", "#only-fragment", "a:b", "mailto:x@y.z",
    "/a\tb", "/a\nb", "http://other.org/a\rb", "/ü/ß", "/a//b", "/a b",
]


@pytest.mark.parametrize("base", BASES)
def test_an_absolute_link_is_what_urljoin_makes_of_it(base):
    for href in HREFS:
        try:
            expected = urljoin(base, href)
        except ValueError:
            expected = None
        assert absolute(base, href) == expected, (base, href)


def test_a_link_is_left_alone_without_a_base():
    assert absolute("", "/a?b") == "/a?b"
