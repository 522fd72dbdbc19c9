"""Image files checked from their headers before OpenCV decodes them, and decoded quietly.

:func:`read_header` reads the format and the size in pixels from the first bytes of a PNG
(IHDR), JPEG (the SOF marker), BMP, TIFF (the first IFD) or WebP (VP8, VP8L, VP8X) file,
and checks that a PNG or JPEG is whole (its IEND chunk, its end-of-image marker): a file cut
short is refused before any decoder runs on it. :func:`decode_image` refuses anything over
:data:`MAX_IMAGE_PX` from that header, so a small file that declares a huge image never
allocates it, then decodes with OpenCV while the codecs' own messages (libpng, libjpeg,
OpenCV's ``[ WARN:...]``), which they print straight to file descriptor 2, are kept off the
terminal: the caller reports a bad file in one line of its own.

Importing this module also sets OpenCV's log level to silent unless ``OPENCV_LOG_LEVEL``
says otherwise: every failure vision reports is an exception with its own message.
"""

from __future__ import annotations

import logging
import os
import struct
import sys
import tempfile
import threading
from dataclasses import dataclass

import cv2
import numpy as np

from vision.errors import VisionError

log = logging.getLogger(__name__)

MAX_IMAGE_PX = 40_000_000
"""The most pixels an image may have (40 Mpx, 120 MB as BGR): a 12 Mpx phone photo and a 16 Mpx
Raspberry Pi HQ or Camera Module 3 frame with room to spare, on a Pi 4 with 2 GB."""
FORMATS = "PNG, JPEG, BMP, TIFF or WebP"

if "OPENCV_LOG_LEVEL" not in os.environ:
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)


class ImageFileError(VisionError, ValueError):
    """A file that is not an image vision reads: the message is the reason alone, and the
    caller puts the file's name (and its own error class) in front."""


@dataclass(frozen=True)
class ImageHeader:
    format: str  # "PNG", "JPEG", "BMP", "TIFF" or "WebP"
    width_px: int
    height_px: int

    @property
    def pixels(self) -> int:
        return self.width_px * self.height_px


def read_header(data: bytes) -> ImageHeader:
    """The format and size that *data* (a whole file) declares, without decoding it.

    :raises ImageFileError: for another format, a header that does not parse, a zero size,
        or a PNG or JPEG cut short.
    """
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return _png(data)
    if data.startswith(b"\xff\xd8\xff"):
        return _jpeg(data)
    if data.startswith(b"BM"):
        return _bmp(data)
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return _tiff(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp(data)
    raise ImageFileError(f"not an image ({FORMATS})")


def check_header(data: bytes) -> ImageHeader:
    """:func:`read_header`, and the size held to :data:`MAX_IMAGE_PX`.

    :raises ImageFileError: as :func:`read_header` does, or naming the size and the limit.
    """
    header = read_header(data)
    if header.pixels > MAX_IMAGE_PX:
        raise ImageFileError(f"{header.width_px}x{header.height_px} pixels is over the "
                             f"{MAX_IMAGE_PX / 1e6:g} Mpx limit")
    return header


_DECODING = threading.Lock()


def decode_image(data: bytes) -> np.ndarray:
    """The image in *data* (a whole file) as OpenCV decodes it (``IMREAD_COLOR``: BGR uint8),
    after :func:`check_header`.

    While OpenCV decodes, file descriptor 2 points at a temporary file, under a lock (one
    decode at a time): the codecs' messages are logged at DEBUG instead of reaching the
    terminal, and so is whatever another thread writes to stderr in those milliseconds.

    :raises ImageFileError: for what :func:`check_header` refuses, or a file OpenCV cannot decode.
    """
    header = check_header(data)
    buf = np.frombuffer(data, np.uint8)
    with _DECODING, tempfile.TemporaryFile() as said:
        sys.stderr.flush()
        try:
            saved = os.dup(2)
        except OSError:  # no fd 2 at all (a daemon's): nothing to keep clean
            saved = -1
        try:
            if saved >= 0:
                os.dup2(said.fileno(), 2)
            image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        finally:
            if saved >= 0:
                os.dup2(saved, 2)
                os.close(saved)
        said.seek(0)
        noise = said.read().decode(errors="replace").strip()
    if noise:
        log.debug("decoding a %s image, the codecs said: %s", header.format, noise)
    if image is None or image.size == 0:
        raise ImageFileError(f"not an image OpenCV can read (a {header.format} file that does not decode)")
    return np.asarray(image, np.uint8)


# -- the formats ---------------------------------------------------------------------------------

def _sized(fmt: str, width: int, height: int) -> ImageHeader:
    if width <= 0 or height <= 0:
        raise ImageFileError(f"not an image OpenCV can read (a {fmt} header of {width}x{height} pixels)")
    return ImageHeader(fmt, width, height)


def _png(data: bytes) -> ImageHeader:
    """IHDR first; then every chunk's length walked to IEND, so a file cut short is seen."""
    if len(data) < 33 or data[12:16] != b"IHDR":
        raise ImageFileError("not an image OpenCV can read (a PNG without its IHDR header)")
    width, height = struct.unpack(">II", data[16:24])
    at = 8
    while at + 12 <= len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind = data[at + 4:at + 8]
        at += 12 + length
        if kind == b"IEND" and at <= len(data):
            return _sized("PNG", width, height)
    raise ImageFileError("not a whole PNG file: it is cut short (no IEND chunk)")


_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg(data: bytes) -> ImageHeader:
    """Markers walked from SOI to the first SOS: the SOF gives the size. The segments'
    lengths skip what they hold (an EXIF thumbnail is a JPEG of its own), and an EOI after the
    scan shows the file is whole."""
    at, size = 2, None
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            raise ImageFileError("not an image OpenCV can read (a JPEG whose markers do not parse)")
        marker = data[at + 1]
        if marker == 0xFF:  # fill bytes before a marker
            at += 1
            continue
        if marker == 0x01 or 0xD0 <= marker <= 0xD7:  # no length
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2:at + 4])
        if marker in _SOF and at + 9 <= len(data):
            height, width = struct.unpack(">HH", data[at + 5:at + 9])
            size = (width, height)
        if marker == 0xDA:  # start of scan: the entropy-coded data follows
            if size is None:
                raise ImageFileError("not an image OpenCV can read (a JPEG without a frame header)")
            if data.find(b"\xff\xd9", at + 2 + length) < 0:
                break
            return _sized("JPEG", *size)
        at += 2 + length
    raise ImageFileError("not a whole JPEG file: it is cut short (no end-of-image marker)")


def _bmp(data: bytes) -> ImageHeader:
    if len(data) < 26:
        raise ImageFileError("not a whole BMP file: it is cut short (no header)")
    (dib,) = struct.unpack("<I", data[14:18])
    if dib == 12:  # BITMAPCOREHEADER (OS/2): 16-bit sizes
        width, height = struct.unpack("<HH", data[18:22])
    else:
        width, height = struct.unpack("<ii", data[18:26])
    return _sized("BMP", width, abs(height))  # a negative height is a top-down bitmap


def _tiff(data: bytes) -> ImageHeader:
    """The first IFD's ImageWidth (256) and ImageLength (257): the page OpenCV decodes."""
    end = "<" if data[:2] == b"II" else ">"
    try:
        (ifd,) = struct.unpack(end + "I", data[4:8])
        (count,) = struct.unpack(end + "H", data[ifd:ifd + 2])
        tags: dict[int, int] = {}
        for i in range(count):
            entry = data[ifd + 2 + 12 * i:ifd + 14 + 12 * i]
            tag, kind = struct.unpack(end + "HH", entry[:4])
            if tag in (256, 257):  # a SHORT (type 3) or a LONG value, in the entry itself
                short = kind == 3
                tags[tag] = struct.unpack(end + ("H" if short else "I"), entry[8:10 if short else 12])[0]
    except struct.error:
        raise ImageFileError("not a whole TIFF file: it is cut short (no first IFD)") from None
    if 256 not in tags or 257 not in tags:
        raise ImageFileError("not an image OpenCV can read (a TIFF without its width and length)")
    return _sized("TIFF", tags[256], tags[257])


def _webp(data: bytes) -> ImageHeader:
    (riff_size,) = struct.unpack("<I", data[4:8])
    if len(data) < 8 + riff_size or len(data) < 30:
        raise ImageFileError("not a whole WebP file: it is cut short (shorter than its RIFF size)")
    chunk = data[12:16]
    if chunk == b"VP8X":  # extended: the canvas, 24-bit sizes less one
        width = 1 + int.from_bytes(data[24:27], "little")
        height = 1 + int.from_bytes(data[27:30], "little")
    elif chunk == b"VP8L" and data[20] == 0x2F:  # lossless: 14-bit sizes less one
        bits = int.from_bytes(data[21:25], "little")
        width, height = 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    elif chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":  # lossy: a key frame's 14-bit sizes
        width, height = (v & 0x3FFF for v in struct.unpack("<HH", data[26:30]))
    else:
        raise ImageFileError("not an image OpenCV can read (a WebP without a VP8, VP8L or VP8X header)")
    return _sized("WebP", width, height)
