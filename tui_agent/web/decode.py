"""Content-Encoding decoding that never produces more than it is asked for.

httpx decodes a chunk in one call: one 64 KiB chunk of a gzip bomb inflates to 64 MiB, and with
``Content-Encoding: gzip, gzip`` a body of a few KB inflates to gigabytes before any byte cap
can look at it. Here the raw bytes (``response.aiter_raw()``) are decoded lazily: every layer is
asked for at most :data:`PIECE_BYTES` at a time (zlib's and zstd's ``max_length``; brotli's
``output_buffer_limit``, which stops its buffer growing and so may give up to one growth step
more, measured at 1.5 times the piece) and the rest stays compressed until the reader asks
again — the reader stops asking at its cap, so memory stays within the cap plus one piece.

:func:`decoder_for` reads the Content-Encoding header: at most :data:`MAX_ENCODING_LAYERS`
compression layers are decoded; more, or a compression this installation cannot decode
boundedly, is :class:`EncodingRefused` before a byte is read. ``identity`` and tokens that are
not compressions (misconfigured servers send ``Content-Encoding: utf-8``) are ignored, as httpx
and browsers ignore them. Decoded: gzip (and x-gzip), deflate (zlib-wrapped or raw, as httpx
accepts both), br when the ``brotli`` module (1.2 or later, for its output limit) is installed,
zstd when ``compression.zstd`` (Python 3.14) or ``backports.zstd`` is.
"""

from __future__ import annotations

import zlib
from typing import Iterator

MAX_ENCODING_LAYERS = 1
"""Compression layers decoded per body. Servers compress once; a second layer has no use but to
multiply the expansion (gzip of gzip turns 3.5 KB into 2 GiB), so a body with more is refused."""

PIECE_BYTES = 64 * 1024
"""The most decoded bytes a layer produces per step: the reader's overshoot past its cap."""

# Names of compressions: one of these that is not decoded here is refused by name rather than
# passed through as if it were plain (any other unknown token labels a plain body and is ignored).
KNOWN_COMPRESSIONS = ("gzip", "x-gzip", "deflate", "br", "zstd", "compress", "x-compress", "pack200-gzip",
                      "exi", "aes128gcm", "dcb", "dcz")
IGNORED = ("", "identity")


class EncodingRefused(Exception):
    """The Content-Encoding header asks for decoding that is not done (too many layers, unknown)."""


class DecodeFailed(Exception):
    """The body does not decode as its Content-Encoding says."""


# --- the layers -------------------------------------------------------------------------------


class _Zlib:
    """gzip (members concatenated, as RFC 1952 allows) or deflate (zlib-wrapped or raw)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._gzip = name in ("gzip", "x-gzip")
        self._d = zlib.decompressobj(zlib.MAX_WBITS | 16) if self._gzip else None
        self._head = b""  # deflate: the first bytes, until the zlib header can be told apart
        self._done = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._done:
            return
        if self._d is None:  # deflate: zlib-wrapped (RFC 1950) when the first two bytes say so
            self._head += data
            if len(self._head) < 2:
                return
            data, self._head = self._head, b""
            wrapped = data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0
            self._d = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        while True:
            if self._d.eof:
                if not data:
                    return
                if not (self._gzip and data[:2] == b"\x1f\x8b"):
                    self._done = True  # bytes after the stream are ignored, as httpx ignores them
                    return
                self._d = zlib.decompressobj(zlib.MAX_WBITS | 16)  # the next gzip member
            try:
                out = self._d.decompress(data, PIECE_BYTES)
            except zlib.error as exc:
                raise DecodeFailed(f"{self.name}: {exc}") from None
            data = self._d.unused_data if self._d.eof else self._d.unconsumed_tail
            if out:
                yield out
            # a piece cut short means zlib wants input; a full one may leave more inside zlib
            if not data and not self._d.eof and len(out) < PIECE_BYTES:
                return


class _Brotli:
    def __init__(self, module) -> None:
        self.name = "br"
        self._error = module.error
        self._d = module.Decompressor()

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._d.is_finished():
            return  # bytes after the stream are ignored
        chunk = data
        while True:  # the limit leaves output inside: empty calls drain it (brotli 1.2 API)
            try:
                out = self._d.process(chunk, output_buffer_limit=PIECE_BYTES)
            except self._error as exc:
                raise DecodeFailed(f"br: {exc}") from None
            if not out:
                return
            chunk = b""
            yield out


class _Zstd:
    def __init__(self, module) -> None:
        self.name = "zstd"
        self._module = module
        self._d = module.ZstdDecompressor()

    def feed(self, data: bytes) -> Iterator[bytes]:
        while True:
            if self._d.eof:  # frames may follow one another
                if not data:
                    return
                self._d = self._module.ZstdDecompressor()
            try:
                out = self._d.decompress(data, PIECE_BYTES)
            except self._module.ZstdError as exc:
                raise DecodeFailed(f"zstd: {exc}") from None
            data = self._d.unused_data if self._d.eof else b""
            if out:
                yield out
            if not self._d.eof and self._d.needs_input:
                return


def _brotli_module():
    """The brotli module when it can limit its output (brotli 1.2+), else None."""
    try:
        import brotli
    except ImportError:
        return None
    try:
        brotli.Decompressor().process(b"", output_buffer_limit=1)
    except (TypeError, AttributeError):  # brotli < 1.2: no bounded decompression
        return None
    except Exception:  # pragma: no cover - an empty input is not an error in 1.2
        pass
    return brotli


def _zstd_module():
    for name in ("compression.zstd", "backports.zstd"):
        try:
            module = __import__(name, fromlist=["ZstdDecompressor"])
        except ImportError:
            continue
        return module
    return None


_BROTLI = _brotli_module()
_ZSTD = _zstd_module()


def supported() -> tuple[str, ...]:
    """The encodings decoded here, in the order advertised in Accept-Encoding."""
    names = ["gzip", "deflate"]
    if _BROTLI is not None:
        names.append("br")
    if _ZSTD is not None:
        names.append("zstd")
    return tuple(names)


ACCEPT_ENCODING = ", ".join(supported())
"""What the fetch client advertises: only what it decodes with a bound."""


def _layer(name: str):
    if name in ("gzip", "x-gzip", "deflate"):
        return _Zlib(name)
    if name == "br" and _BROTLI is not None:
        return _Brotli(_BROTLI)
    if name == "zstd" and _ZSTD is not None:
        return _Zstd(_ZSTD)
    return None


# --- the decoder ------------------------------------------------------------------------------


class Decoder:
    """Decodes a body's layers lazily: iterate :meth:`decode` only as far as you want bytes."""

    def __init__(self, layers: list) -> None:
        self.layers = layers  # in decoding order: the last encoding applied comes first
        self.names = [layer.name for layer in reversed(layers)]

    def decode(self, data: bytes) -> Iterator[bytes]:
        """The decoded pieces of the next raw chunk, each at most :data:`PIECE_BYTES` (or the
        chunk itself when the body is not encoded)."""
        return self._through(0, iter((data,)) if data else iter(()))

    def _through(self, i: int, pieces: Iterator[bytes]) -> Iterator[bytes]:
        if i == len(self.layers):
            yield from pieces
            return
        for piece in pieces:
            yield from self._through(i + 1, self.layers[i].feed(piece))


def decoder_for(content_encodings: list[str], url: str) -> Decoder:
    """The decoder for a response whose Content-Encoding header lists ``content_encodings``
    (comma-split values in the order the server applied them); raises :class:`EncodingRefused`
    with the message the model reads when the body will not be decoded."""
    tokens = [t.strip().lower() for t in content_encodings]
    layers_named = [t for t in tokens if t not in IGNORED and t in KNOWN_COMPRESSIONS]
    shown = ", ".join(t for t in tokens if t)
    if len(layers_named) > MAX_ENCODING_LAYERS:
        most = f"at most {MAX_ENCODING_LAYERS} is" if MAX_ENCODING_LAYERS == 1 else \
            f"at most {MAX_ENCODING_LAYERS} are"
        raise EncodingRefused(
            f"{url} sent its body with {len(layers_named)} content encodings stacked ({shown}): "
            f"{most} decoded, because every further layer only multiplies how far a small download "
            f"can expand (a decompression bomb). Nothing was read.")
    layers = []
    for name in layers_named:
        layer = _layer(name)
        if layer is None:
            raise EncodingRefused(
                f"{url} sent its body in the content encoding {name!r}, which is not decoded here "
                f"(decoded: {', '.join(supported())}). Nothing was read.")
        layers.append(layer)
    return Decoder(list(reversed(layers)))
