"""Bounded decoding against a loopback server: a decompression bomb is cut at the download cap
without inflating past it, stacked or unknown encodings are refused by name, and ordinary
compressed pages still read whole."""

from __future__ import annotations

import gc
import gzip
import tracemalloc
import zlib

import pytest

from tests.helpers import fetch_measured
from tui_agent.cli import read as read_cli
from tui_agent.config import Settings
from tui_agent.tools.base import OK, SourceRegistry, ToolContext
from tui_agent.tools.visit import VisitTool
from tui_agent.web import decode
from tui_agent.web.decode import PIECE_BYTES
from tui_agent.web.net import EncodingError, fetch, make_client

MB = 1024 * 1024
BOMB_MIB = 256  # inflated size; compressed it is ~250 KB (gzip/deflate), ~1 KB stacked
FILLER = b"<p>The tide gauge recorded the spring tide at the harbour.</p>\n"


def settings_for(**overrides) -> Settings:
    base = dict(allow_private_urls=True, visit_connect_timeout_s=2.0, visit_read_timeout_s=5.0,
                visit_total_timeout_s=30.0)
    base.update(overrides)
    return Settings(**base)


def compress_stream(wbits: int, mib: int, unit: bytes) -> bytes:
    block = unit * ((1 << 20) // len(unit)) + unit[: (1 << 20) % len(unit)]
    c = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return b"".join(c.compress(block) for _ in range(mib)) + c.flush()


@pytest.fixture(scope="module")
def bombs() -> dict[str, bytes]:
    """Bodies by Content-Encoding, each BOMB_MIB of HTML paragraphs once decoded."""
    gz = compress_stream(zlib.MAX_WBITS | 16, BOMB_MIB, FILLER)
    return {
        "gzip": gz,
        "deflate": compress_stream(zlib.MAX_WBITS, BOMB_MIB, FILLER),
        "gzip, gzip": gzip.compress(gz, 9),
    }


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
async def test_a_bomb_is_cut_at_the_cap_without_inflating_past_it(page_server, bombs, encoding):
    url = page_server.add("/bomb", bombs[encoding], headers={"Content-Encoding": encoding})
    settings = settings_for(visit_max_bytes=1 * MB)
    result, peak = await fetch_measured(url, settings)
    assert result.status == 200 and result.truncated is True
    assert len(result.body) == 1 * MB and result.body.startswith(FILLER)
    # what the decoder produced: the cap and at most one piece more, of a 256 MiB body
    assert 1 * MB < result.decoded_bytes <= 1 * MB + PIECE_BYTES
    assert peak < 8 * MB, f"peak {peak / MB:.1f} MB"  # httpx's decoder alone made 64 MiB per chunk


async def test_stacked_encodings_are_refused_with_a_message_naming_them(page_server, bombs):
    url = page_server.add("/stacked", bombs["gzip, gzip"], headers={"Content-Encoding": "gzip, gzip"})
    settings = settings_for(visit_max_bytes=1 * MB)
    gc.collect()
    tracemalloc.start()
    try:
        async with make_client(settings) as client:
            with pytest.raises(EncodingError) as info:
                await fetch(client, url, settings)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.kind == "encoding"
    assert info.value.message.startswith(f"{url} sent its body with 2 content encodings stacked (gzip, gzip): "
                                         f"at most 1 is decoded")
    assert peak < 4 * MB  # refused from the header: nothing was inflated


async def test_a_repeated_header_counts_as_stacked_layers_too(page_server):
    def handler(h):
        body = gzip.compress(gzip.compress(b"<p>twice</p>"))
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Encoding", "gzip")
        h.send_header("Content-Encoding", "gzip")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    url = page_server.add_handler("/twice", handler)
    async with make_client(settings_for()) as client:
        with pytest.raises(EncodingError, match=r"2 content encodings stacked \(gzip, gzip\)"):
            await fetch(client, url, settings_for())


async def test_an_unknown_compression_is_refused_by_name(page_server):
    url = page_server.add("/lzw", b"\x1f\x9d\x90compressed", headers={"Content-Encoding": "compress"})
    async with make_client(settings_for()) as client:
        with pytest.raises(EncodingError, match="content encoding 'compress', which is not decoded here"):
            await fetch(client, url, settings_for())


async def test_an_ordinary_compressed_page_reads_whole_and_the_request_offers_only_decoded_encodings(page_server):
    page = FILLER * 20_000  # 1.2 MB of HTML, 5 KB compressed
    url = page_server.add("/page", gzip.compress(page), headers={"Content-Encoding": "gzip"})
    settings = settings_for(visit_max_bytes=5 * MB)
    async with make_client(settings) as client:
        result = await fetch(client, url, settings)
    assert result.body == page and result.truncated is False and result.incomplete is None
    assert page_server.requests[-1][2]["accept-encoding"] == decode.ACCEPT_ENCODING


async def test_the_cap_also_counts_received_bytes_that_decode_to_nothing(page_server):
    # a gzip header and then empty stored blocks: 3 MB on the wire, not one byte decoded
    empty_block = b"\x00\x00\x00\xff\xff"  # BFINAL=0, stored, LEN=0, NLEN=0xFFFF
    body = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + empty_block * (3 * MB // len(empty_block))
    url = page_server.add("/empty-blocks", body, headers={"Content-Encoding": "gzip"})
    settings = settings_for(visit_max_bytes=1 * MB)
    async with make_client(settings) as client:
        result = await fetch(client, url, settings)
    assert result.truncated is True and result.body == b""


async def test_a_body_that_does_not_decode_is_an_encoding_error_or_a_partial_read(page_server):
    bad = page_server.add("/bad", b"<p>not gzip at all</p>", headers={"Content-Encoding": "gzip"})
    good = gzip.compress(FILLER * 4000)  # 256 KB: four pieces decode before the trailer is checked
    cut = page_server.add("/bad-checksum", good[:-8] + bytes(8), headers={"Content-Encoding": "gzip"})
    async with make_client(settings_for()) as client:
        with pytest.raises(EncodingError, match="does not decode as its Content-Encoding says"):
            await fetch(client, bad, settings_for())
        result = await fetch(client, cut, settings_for())
    assert result.body.startswith(FILLER) and len(result.body) >= 3 * PIECE_BYTES
    assert result.incomplete.startswith("the rest of the body could not be decoded (gzip: ")


# --- what the model and `tui-agent read` get --------------------------------------------------


async def visit(url: str, settings: Settings):
    async with make_client(settings) as client:
        ctx = ToolContext(settings=settings, http=client, sources=SourceRegistry())
        return await VisitTool().run({"url": [url], "goal": "tides"}, ctx)


async def test_the_model_reads_a_bomb_cut_at_the_cap_with_the_note(page_server, bombs):
    url = page_server.add("/bomb", bombs["gzip"], headers={"Content-Encoding": "gzip"})
    settings = settings_for(visit_max_bytes=256 * 1024, extract=False)
    result = await visit(url, settings)
    assert result.status == OK
    assert "[stopped at the 256 KB download cap]" in result.text
    assert "The tide gauge recorded the spring tide" in result.text
    out, err, code = await read_cli.read(url, settings)
    assert code == 0 and "[stopped at the 256 KB download cap]" in out.splitlines()[1]


async def test_the_model_is_told_why_a_stacked_body_was_not_read(page_server, bombs):
    url = page_server.add("/stacked", bombs["gzip, gzip"], headers={"Content-Encoding": "gzip, gzip"})
    settings = settings_for(extract=False)
    result = await visit(url, settings)
    assert result.status == OK  # the server's doing, like a binary file: the tool worked
    assert f"[no text] {url}\n{url} sent its body with 2 content encodings stacked (gzip, gzip)" in result.text
    assert "Try another source." in result.text
    out, err, code = await read_cli.read(url, settings)
    assert (out, code) == ("", 1)
    assert err.startswith(f"[no text] {url}\n{url} sent its body with 2 content encodings stacked (gzip, gzip)")
