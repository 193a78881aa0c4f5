"""Bounded Content-Encoding decoding: every piece is small however far the body inflates, the
bytes come out right in any chunking, and what is not decoded is refused by name."""

from __future__ import annotations

import gzip
import random
import zlib

import pytest

from tui_agent.web import decode
from tui_agent.web.decode import PIECE_BYTES, DecodeFailed, EncodingRefused, decoder_for

URL = "https://example.com/page"


def sample(size: int = 400_000) -> bytes:
    """Text, random bytes and long zero runs: compressible and not, in the same body."""
    rng = random.Random(7)
    parts, total = [], 0
    while total < size:
        part = rng.choice([b"tides and currents " * 20, rng.randbytes(300), bytes(5000)])
        parts.append(part)
        total += len(part)
    return b"".join(parts)[:size]


def raw_deflate(data: bytes) -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return c.compress(data) + c.flush()


def zeros_gzip(mib: int) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = bytes(1 << 20)
    return b"".join(c.compress(block) for _ in range(mib)) + c.flush()


def decode_all(encodings: list[str], body: bytes, chunk: int, limit: int = 1 << 30) -> tuple[bytes, int]:
    """(decoded bytes, largest piece), fed ``chunk`` bytes at a time, stopping past ``limit``."""
    decoder = decoder_for(encodings, URL)
    out, largest, total = [], 0, 0
    for i in range(0, len(body), chunk):
        for piece in decoder.decode(body[i:i + chunk]):
            out.append(piece)
            largest = max(largest, len(piece))
            total += len(piece)
            if total > limit:
                return b"".join(out), largest
    return b"".join(out), largest


ENCODERS = {
    "gzip": gzip.compress,
    "x-gzip": gzip.compress,
    "deflate": zlib.compress,  # zlib-wrapped, as RFC 9110 means it
    "deflate (raw)": raw_deflate,  # what some servers send under the same name
}


@pytest.mark.parametrize("name", list(ENCODERS))
@pytest.mark.parametrize("chunk", [1, 7, 4096, 65536, 10 ** 9])
def test_zlib_encodings_decode_exactly_in_any_chunking_with_small_pieces(name, chunk):
    data = sample()
    out, largest = decode_all([name.split()[0]], ENCODERS[name](data), chunk)
    assert out == data
    assert largest <= PIECE_BYTES


def test_concatenated_gzip_members_decode_as_one_body():
    data = sample()
    out, _ = decode_all(["gzip"], gzip.compress(data[:1000]) + gzip.compress(data[1000:]), 500)
    assert out == data


def test_a_gzip_bomb_comes_out_one_piece_at_a_time():
    # 256 MiB of zeros in ~250 KB: one 64 KiB chunk of it alone inflates to 64 MiB in one call
    # of httpx's decoder; here the consumer stops after 1 MiB and nothing more is inflated
    bomb = zeros_gzip(256)
    decoder = decoder_for(["gzip"], URL)
    produced = 0
    for piece in decoder.decode(bomb[:65536]):
        assert len(piece) <= PIECE_BYTES
        produced += len(piece)
        if produced >= 1 << 20:
            break
    assert produced == 1 << 20


def test_identity_and_labels_that_are_no_compression_pass_the_body_through():
    for header in ([], ["identity"], ["utf-8"], ["", "identity"]):
        decoder = decoder_for(header, URL)
        assert decoder.names == [] and list(decoder.decode(b"plain body")) == [b"plain body"]
    assert decoder_for(["identity", "GZip "], URL).names == ["gzip"]


def test_stacked_encodings_are_refused_naming_them():
    assert decode.MAX_ENCODING_LAYERS == 1
    with pytest.raises(EncodingRefused) as info:
        decoder_for(["gzip", "gzip"], URL)
    message = str(info.value)
    assert message.startswith(f"{URL} sent its body with 2 content encodings stacked (gzip, gzip):")
    assert "at most 1 is decoded" in message and "decompression bomb" in message
    with pytest.raises(EncodingRefused, match=r"3 content encodings stacked \(deflate, gzip, br\)"):
        decoder_for(["deflate", "gzip", "br"], URL)


def test_a_compression_not_decoded_here_is_refused_naming_it():
    with pytest.raises(EncodingRefused) as info:
        decoder_for(["compress"], URL)
    assert "content encoding 'compress'" in str(info.value)
    assert f"decoded: {decode.ACCEPT_ENCODING}" in str(info.value)


def test_accept_encoding_lists_only_what_is_decoded():
    assert decode.ACCEPT_ENCODING.split(", ")[:2] == ["gzip", "deflate"]
    for name in decode.ACCEPT_ENCODING.split(", "):
        decoder_for([name], URL)  # each advertised one has a decoder


def test_a_body_that_is_not_what_its_encoding_says_fails_by_name():
    with pytest.raises(DecodeFailed, match="^gzip: .*incorrect header check"):
        decode_all(["gzip"], b"this was never gzip", 100)


def test_bytes_after_the_end_of_a_gzip_stream_are_ignored():
    data = sample(10_000)
    out, _ = decode_all(["gzip"], gzip.compress(data) + b"trailing junk", 100)
    assert out == data


# --- br and zstd: decoded when their modules offer an output limit ----------------------------


def test_brotli_decodes_with_bounded_pieces_when_installed():
    brotli = pytest.importorskip("brotli")
    if "br" not in decode.supported():
        pytest.skip("brotli older than 1.2 (no output limit): br is not advertised")
    data = sample()
    for chunk in (1, 1000, 65536, 10 ** 9):
        out, largest = decode_all(["br"], brotli.compress(data), chunk)
        assert out == data
        assert largest <= 2 * PIECE_BYTES  # brotli's limit stops the buffer growing, within a step
    c = brotli.Compressor(quality=5)
    bomb = b"".join(c.process(bytes(1 << 20)) for _ in range(256)) + c.finish()  # 256 MiB in ~1 KB
    out, largest = decode_all(["br"], bomb, 65536, limit=1 << 20)
    assert len(out) <= (1 << 20) + 2 * PIECE_BYTES and largest <= 2 * PIECE_BYTES


def test_zstd_decodes_with_bounded_pieces_when_installed():
    if "zstd" not in decode.supported():
        pytest.skip("no compression.zstd / backports.zstd: zstd is not advertised")
    zstd = decode._ZSTD
    data = sample()
    for chunk in (1, 1000, 65536, 10 ** 9):
        out, largest = decode_all(["zstd"], zstd.compress(data), chunk)
        assert out == data and largest <= PIECE_BYTES
    two_frames = zstd.compress(data[:5000]) + zstd.compress(data[5000:])
    assert decode_all(["zstd"], two_frames, 999)[0] == data
    bomb = zstd.compress(bytes(256 << 20))
    out, largest = decode_all(["zstd"], bomb, 65536, limit=1 << 20)
    assert len(out) <= (1 << 20) + PIECE_BYTES and largest <= PIECE_BYTES
