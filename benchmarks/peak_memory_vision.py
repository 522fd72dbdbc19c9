"""Peak memory of ``companion vision read`` on a phone photo: the real CLI in a fresh process.

    .venv/bin/python benchmarks/peak_memory_vision.py [--runs 5] [--sizes 4000x3000,4656x3496,7296x5472]
                                                      [--json]

The photo: the largest real one in the repository, the Set table photo
``tests/vision/data/set-game/scenes/nine-cards-mixed-20161230_192740.jpg`` (3264x1836, nine
cards, a phone's), scaled up (cubic) to each size's width and padded at the top and bottom
with its edge rows to the size's height (the cards are not stretched), written as a JPEG at
quality 92 as a phone writes it. 4000x3000 is a 12 Mpx phone photo, 4656x3496 a 16 Mpx
Camera Module 3 frame, 7296x5472 just under the 40 Mpx limit.

The library: the 81 Set card fronts registered from the 162 reference crops, as
``benchmarks/piece_reading.py`` registers them. Each run is
``python -m companion vision read PHOTO --library LIB --json`` in a new process; its peak RSS
is the kernel's ``ru_maxrss`` for that child (``os.wait4``), which is what ``/usr/bin/time -v``
reports as "Maximum resident set size".
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the Set photos' loader is the tests'

from tests.vision import set_game  # noqa: E402
from vision.library import Library  # noqa: E402

PHOTO = set_game.SET_GAME / "scenes" / "nine-cards-mixed-20161230_192740.jpg"
CARD_MM = (57.0, 88.0)
JPEG_QUALITY = 92


def make_photo(size: tuple[int, int], out: Path) -> Path:
    """The Set photo at *size* (width, height): scaled to the width, its edge rows repeated to
    the height. :raises SystemExit: if the photo is not there."""
    image = cv2.imread(str(PHOTO), cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
    if image is None:
        raise SystemExit(f"cannot read {PHOTO}")
    w, h = size
    scale = w / image.shape[1]
    scaled = cv2.resize(image, (w, round(image.shape[0] * scale)), interpolation=cv2.INTER_CUBIC)
    top = max(0, (h - scaled.shape[0]) // 2)
    framed = cv2.copyMakeBorder(scaled, top, max(0, h - scaled.shape[0] - top), 0, 0, cv2.BORDER_REPLICATE)
    framed = framed[:h]
    assert framed.shape[:2] == (h, w), framed.shape
    cv2.imwrite(str(out), framed, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    return out


def make_library(root: Path) -> int:
    library = Library.create(root)
    crops = sorted((set_game.SET_GAME / "crops_train_sample").glob("*/*.jpg"))
    for path in crops:
        library.register("set-card", "rect", CARD_MM, set_game.crop(path), front=path.parent.name)
    return len(crops)


def one_read(photo: Path, library: Path) -> dict[str, Any]:
    """One ``vision read`` in a new process: its peak RSS (MiB), wall time and what it read."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "companion", "vision", "read", str(photo), "--library",
                                 str(library), "--json"], stdout=out, stderr=err, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall_s = time.monotonic() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(f"vision read failed ({proc.returncode}): {err.read().decode()[-2000:]}")
        doc = json.loads(out.read())
    return {"peak_rss_mib": usage.ru_maxrss / 1024, "wall_s": wall_s, "pieces": len(doc["pieces"]),
            "unknown": len(doc["unknown"])}


def machine() -> dict[str, Any]:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    mem_kib = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal"))
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gib": round(mem_kib / 2**20, 1),
            "kernel": platform.release(), "machine": platform.machine(), "python": platform.python_version(),
            "opencv": cv2.__version__, "numpy": np.__version__}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="reads of the 12 Mpx photo")
    parser.add_argument("--other-runs", type=int, default=3, help="reads of each other size")
    parser.add_argument("--sizes", default="4000x3000,4656x3496,7296x5472",
                        help="WxH,... the first is the one --runs is for")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    results: dict[str, Any] = {"machine": machine(), "photo": str(PHOTO.relative_to(ROOT)), "sizes": []}
    with tempfile.TemporaryDirectory(prefix="companion-mem-") as tmp:
        results["references"] = make_library(Path(tmp) / "library")
        for i, (w, h) in enumerate(sizes):
            photo = make_photo((w, h), Path(tmp) / f"photo-{w}x{h}.jpg")
            n = args.runs if i == 0 else args.other_runs
            runs = [one_read(photo, Path(tmp) / "library") for _ in range(n)]
            peaks = [r["peak_rss_mib"] for r in runs]
            results["sizes"].append({
                "size": f"{w}x{h}", "mpx": round(w * h / 1e6, 1),
                "file_mib": round(photo.stat().st_size / 2**20, 1),
                "runs": len(runs), "peak_rss_mib_median": round(statistics.median(peaks), 1),
                "peak_rss_mib_max": round(max(peaks), 1), "peak_rss_mib_min": round(min(peaks), 1),
                "wall_s_median": round(statistics.median(r["wall_s"] for r in runs), 2),
                "pieces": runs[0]["pieces"], "unknown": runs[0]["unknown"]})
    if args.json:
        print(json.dumps(results, indent=2))
        return
    m = results["machine"]
    print(f"{m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB, Linux {m['kernel']} {m['machine']}, "
          f"Python {m['python']}, OpenCV {m['opencv']}; library of {results['references']} reference crops")
    for s in results["sizes"]:
        print(f"{s['size']} ({s['mpx']} Mpx, {s['file_mib']} MiB JPEG): peak RSS median "
              f"{s['peak_rss_mib_median']} MiB, max {s['peak_rss_mib_max']} MiB over {s['runs']} runs; "
              f"{s['wall_s_median']} s a read; "
              f"{s['pieces']} pieces read, {s['unknown']} unknown")


if __name__ == "__main__":
    main()
