"""Image files checked from their headers before decoding: sizes, the pixel limit, files cut
short, and the codecs kept quiet. Real files written by OpenCV, some with a header edited."""

from __future__ import annotations

import json
import logging
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.errors import CameraUnavailable, LayoutError
from vision.image_files import MAX_IMAGE_PX, ImageFileError, check_header, decode_image, read_header
from vision.library import Library
from vision.sources import ImageSource, StaticSource
from vision.table_camera import TableCamera


def _picture(w: int = 64, h: int = 48) -> np.ndarray:
    """A BGR picture with some detail, so that every codec has data to code."""
    rng = np.random.default_rng(7)
    return cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), (5, 5), 0)


def encoded(ext: str, image: np.ndarray | None = None, params: tuple[int, ...] = ()) -> bytes:
    ok, buf = cv2.imencode(ext, _picture() if image is None else image, list(params))
    assert ok
    return buf.tobytes()


def png_declaring(width: int, height: int) -> bytes:
    """A valid small PNG whose IHDR says *width* x *height*, its CRC made right again."""
    png = encoded(".png")
    ihdr = struct.pack(">II", width, height) + png[24:29]
    return png[:16] + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)) + png[33:]


def _jpeg_sof(data: bytes) -> int:
    """Where the SOF0 marker of a baseline JPEG from OpenCV is."""
    at = data.find(b"\xff\xc0")
    assert at > 0
    return at


def jpeg_declaring(width: int, height: int) -> bytes:
    data = bytearray(encoded(".jpg"))
    sof = _jpeg_sof(bytes(data))
    data[sof + 5:sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


# -- sizes read from the headers --------------------------------------------------------------------

@pytest.mark.parametrize(("ext", "params", "fmt"), [
    (".png", (), "PNG"), (".jpg", (), "JPEG"), (".jpg", (cv2.IMWRITE_JPEG_PROGRESSIVE, 1), "JPEG"),
    (".bmp", (), "BMP"), (".tiff", (), "TIFF"), (".webp", (cv2.IMWRITE_WEBP_QUALITY, 80), "WebP"),
    (".webp", (cv2.IMWRITE_WEBP_QUALITY, 101), "WebP"),  # over 100: lossless (VP8L)
])
@pytest.mark.parametrize(("w", "h"), [(64, 48), (1, 1), (301, 17)])
def test_read_header_gives_the_size_opencv_decodes(ext: str, params: tuple[int, ...], fmt: str, w: int,
                                                   h: int) -> None:
    data = encoded(ext, _picture(w, h), params)
    header = read_header(data)
    assert (header.format, header.width_px, header.height_px) == (fmt, w, h)
    assert decode_image(data).shape == (h, w, 3)


def test_read_header_reads_big_endian_tiff_and_bottom_up_and_top_down_bmp() -> None:
    tiff = bytearray(encoded(".tiff"))
    assert read_header(bytes(tiff)).width_px == 64
    bmp = bytearray(encoded(".bmp"))
    bmp[22:26] = struct.pack("<i", -48)  # a top-down bitmap: the same size
    assert (read_header(bytes(bmp)).width_px, read_header(bytes(bmp)).height_px) == (64, 48)


def test_read_header_skips_an_exif_thumbnail() -> None:
    """An APP1 segment holding a whole small JPEG (as an EXIF thumbnail does): the size is the
    main image's, and the thumbnail's end marker does not make a cut-short file look whole."""
    main = encoded(".jpg", _picture(200, 100))
    thumb = encoded(".jpg", _picture(16, 8))
    app1 = b"\xff\xe1" + struct.pack(">H", len(thumb) + 8) + b"Exif\x00\x00" + thumb
    data = main[:2] + app1 + main[2:]
    assert (read_header(data).width_px, read_header(data).height_px) == (200, 100)
    with pytest.raises(ImageFileError, match="cut short"):
        read_header(data[:-200])


@pytest.mark.parametrize("data", [b"", b"not a png at all", b"GIF89a" + bytes(20), b"P6\n64 48\n255\n"])
def test_read_header_refuses_other_formats(data: bytes) -> None:
    with pytest.raises(ImageFileError, match=r"not an image \(PNG, JPEG, BMP, TIFF or WebP\)"):
        read_header(data)


# -- the limit, before decoding ----------------------------------------------------------------------

def test_limit_admits_a_phone_photo_and_a_pi_camera_frame() -> None:
    assert check_header(png_declaring(4000, 3000)).pixels == 12_000_000  # a 12 Mpx phone photo
    assert check_header(jpeg_declaring(4656, 3496)).pixels < MAX_IMAGE_PX  # Camera Module 3, 16 Mpx
    assert check_header(png_declaring(8000, 5000)).pixels == MAX_IMAGE_PX


@pytest.mark.parametrize(("data", "message"), [
    (png_declaring(20000, 20000), "20000x20000 pixels is over the 40 Mpx limit"),
    (png_declaring(8000, 5001), "8000x5001 pixels is over the 40 Mpx limit"),
    (jpeg_declaring(65000, 65000), "65000x65000 pixels is over the 40 Mpx limit"),
])
def test_decode_image_refuses_a_huge_header_without_decoding(data: bytes, message: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cv2, "imdecode", lambda *_: pytest.fail("decoded an image over the limit"))
    with pytest.raises(ImageFileError) as info:
        decode_image(data)
    assert str(info.value) == message


def test_huge_bmp_tiff_and_webp_headers_are_refused() -> None:
    bmp = bytearray(encoded(".bmp"))
    bmp[18:26] = struct.pack("<ii", 30000, 30000)
    tiff = bytearray(encoded(".tiff"))  # little-endian from OpenCV; width and length as LONG or SHORT
    ifd = struct.unpack("<I", tiff[4:8])[0]
    for i in range(struct.unpack("<H", tiff[ifd:ifd + 2])[0]):
        at = ifd + 2 + 12 * i
        tag, kind = struct.unpack("<HH", tiff[at:at + 4])
        if tag in (256, 257):
            tiff[at + 8:at + 12] = struct.pack("<H", 60000) + b"\0\0" if kind == 3 else struct.pack("<I", 60000)
    webp = bytearray(encoded(".webp", params=(cv2.IMWRITE_WEBP_QUALITY, 80)))
    webp[26:30] = struct.pack("<HH", 16000, 16000)
    for data, size in ((bmp, "30000x30000"), (tiff, "60000x60000"), (webp, "16000x16000")):
        with pytest.raises(ImageFileError, match=f"{size} pixels is over the 40 Mpx limit"):
            check_header(bytes(data))


@pytest.mark.parametrize("ext", [".png", ".jpg", ".webp"])
def test_files_cut_short_are_refused_before_decoding(ext: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = encoded(ext, _picture(200, 150))
    monkeypatch.setattr(cv2, "imdecode", lambda *_: pytest.fail("decoded a file cut short"))
    for cut in (len(data) // 2, len(data) - 5):
        with pytest.raises(ImageFileError, match="cut short"):
            decode_image(data[:cut])


# -- the loaders: one line each, nothing from the codecs -----------------------------------------

def test_image_source_names_the_file_and_the_limit(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "image.png"
    path.write_bytes(png_declaring(20000, 20000))
    with pytest.raises(CameraUnavailable) as info:
        ImageSource(path)
    assert str(info.value) == f"image {str(path)!r}: 20000x20000 pixels is over the 40 Mpx limit"
    assert capfd.readouterr().err == ""


def test_a_broken_png_under_the_limit_keeps_libpng_quiet(tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                                         caplog: pytest.LogCaptureFixture) -> None:
    """A whole PNG that says 1000x1000 but holds 64x48 pixels' data: libpng fails while decoding,
    and what it prints on fd 2 goes to the DEBUG log instead."""
    path = tmp_path / "short.png"
    path.write_bytes(png_declaring(1000, 1000))
    caplog.set_level(logging.DEBUG, "vision.image_files")
    with pytest.raises(CameraUnavailable, match="short.png.*not an image OpenCV can read"):
        ImageSource(path)
    assert capfd.readouterr().err == ""
    assert any("libpng" in r.getMessage() for r in caplog.records)


def test_library_refuses_a_reference_image_cut_short(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "fronts").mkdir()
    (tmp_path / "fronts" / "a.png").write_bytes(encoded(".png", _picture(228, 352))[:2000])
    doc = {"kinds": {"card": {"shape": "rect", "size_mm": [57, 88], "back": None, "fronts": {"a": ["fronts/a.png"]}}}}
    (tmp_path / "library.json").write_text(json.dumps(doc))
    with pytest.raises(LayoutError) as info:
        Library.load(tmp_path).fronts("card")
    assert str(info.value) == (f"library {tmp_path / 'library.json'}: kinds.card.fronts.a[0]: cannot read the "
                               "image 'fronts/a.png': not a whole PNG file: it is cut short (no IEND chunk)")
    assert capfd.readouterr().err == ""


def test_library_register_refuses_a_huge_photo(tmp_path: Path) -> None:
    photo = tmp_path / "photo.png"
    photo.write_bytes(png_declaring(20000, 20000))
    library = Library.create(tmp_path / "lib")
    with pytest.raises(LayoutError, match=r"photo.png: cannot read it as an image: 20000x20000 pixels is over"):
        library.register("coin", "disc", (25, 25), photo, front="a")


@pytest.mark.parametrize(("data", "why"), [
    (encoded(".png", _picture(64, 48))[:300], "not a whole PNG file: it is cut short (no IEND chunk)"),
    (png_declaring(20000, 20000), "20000x20000 pixels is over the 40 Mpx limit"),
])
def test_table_camera_leaves_out_a_bad_empty_table_photo(tmp_path: Path, data: bytes, why: str,
                                                         capfd: pytest.CaptureFixture[str],
                                                         caplog: pytest.LogCaptureFixture) -> None:
    Library.create(tmp_path / "library")
    (tmp_path / "empty.png").write_bytes(data)
    frame = np.full((48, 64, 3), 128, np.uint8)
    camera = TableCamera("none", tmp_path, open_fn=lambda: StaticSource([frame]))
    camera.read_pieces()
    assert [r.getMessage() for r in caplog.records if "empty.png" in r.getMessage()] == [
        f"{tmp_path / 'empty.png'} is unreadable ({why}): not used"]
    assert capfd.readouterr().err == ""


# -- the real CLI ---------------------------------------------------------------------------------

BROKEN = {
    "huge.png": (png_declaring(20000, 20000), "20000x20000 pixels is over the 40 Mpx limit"),
    "cut.png": (encoded(".png", _picture(200, 150))[:4000], "not a whole PNG file: it is cut short (no IEND chunk)"),
    "cut.jpg": (encoded(".jpg", _picture(200, 150))[:1500],
                "not a whole JPEG file: it is cut short (no end-of-image marker)"),
    "short.png": (png_declaring(1000, 1000), "not an image OpenCV can read (a PNG file that does not decode)"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BROKEN))
def test_vision_read_refuses_a_broken_image_in_one_line(tmp_path: Path, name: str) -> None:
    data, why = BROKEN[name]
    image = tmp_path / name
    image.write_bytes(data)
    Library.create(tmp_path / "lib")
    done = subprocess.run([sys.executable, "-m", "companion", "vision", "read", str(image), "--library",
                           str(tmp_path / "lib")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [f"companion: image {str(image)!r}: {why}"], done.stderr
    assert done.stdout == ""


@pytest.mark.slow
def test_vision_silences_opencvs_own_log(tmp_path: Path) -> None:
    """A camera that is not there: OpenCV's ``[ WARN:...]`` lines stay off stderr, leaving the one line."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("OPENCV_LOG_LEVEL", None)
    assert not Path("/dev/video99").exists()
    done = subprocess.run([sys.executable, "-m", "companion", "vision", "remember-empty", "--camera", "99"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1 and "/dev/video99" in done.stderr, done.stderr
