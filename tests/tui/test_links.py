"""Links in the TUI open only http(s) URLs, and only the URL they show."""

from __future__ import annotations

import re

from tests.tui.conftest import scripted_app, wait_ended, wait_until

ANSWER = ("<answer>Read [https://docs.example/guide](https://evil.example/phish), open "
          "[the file](vscode://file/etc/passwd), see ![a chart](javascript:alert(1)) and "
          "https://ok.example/page. Notes: [[link=vscode://x]here[/link]] [@click=app.quit]stop[/].</answer>")


def _links(markdown) -> list[tuple[str, str]]:
    """(text shown, href opened) of every clickable span in a rendered Markdown widget."""
    from textual.widgets._markdown import MarkdownBlock

    found = []
    for block in markdown.query(MarkdownBlock):
        content = block._content
        for span in content.spans:
            meta = getattr(span.style, "meta", {}) or {}
            click = meta.get("@click", "")
            if click.startswith("link("):
                href = re.fullmatch(r"link\('(.*)'\)", click, re.DOTALL).group(1)
                found.append((content.plain[span.start:span.end], href))
    return found


async def test_answer_links_open_only_http_urls_and_only_the_url_they_show(tmp_path):
    from textual.widgets._markdown import MarkdownBlock

    app, _, model = scripted_app(tmp_path, [ANSWER], require_evidence=False)
    opened: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        app._driver.open_url = lambda url, new_tab=True: opened.append(url)  # what reaches the system
        await wait_ended(pilot, app)
        markdown = app.main.query_one("#answer").document
        await wait_until(pilot, lambda: _links(markdown), what=f"the answer's links rendered: {markdown._markdown!r}")
        links = _links(markdown)
        assert {href for _, href in links} == {"https://evil.example/phish", "https://ok.example/page"}
        assert all(text == href for text, href in links)  # each link shows exactly what it opens
        plain = "\n".join(b._content.plain for b in markdown.query(MarkdownBlock))
        assert "vscode://file/etc/passwd" in plain and "[link=vscode://x]" in plain  # shown, as text
        for _, href in links:  # click each link the answer has
            await markdown.query(MarkdownBlock).first().action_link(href)
        app.open_url("vscode://file/etc/passwd")  # any other way a link could arrive
        await pilot.pause()
        assert sorted(set(opened)) == ["https://evil.example/phish", "https://ok.example/page"]


async def test_a_notice_quoting_markup_shows_it_as_text_and_makes_no_link(tmp_path):
    app, _, model = scripted_app(tmp_path, [], question=None)
    said = "MCP server 'x' said: [link=vscode://file/etc/passwd]details[/link] [@click=app.quit]ok[/]"
    async with app.run_test(size=(120, 40)) as pilot:
        app.notify(said)
        await pilot.pause()
        (note,) = [n for n in app._notifications if "MCP server 'x'" in n.message]
        assert note.message == said and not note.markup  # shown as the text it is: no link, no action
