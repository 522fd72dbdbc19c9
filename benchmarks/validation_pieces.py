"""The piece reader on the independent renderer's validation scenes, through the CLI contract.

    .venv/bin/python benchmarks/validation_pieces.py [--set DIR] [--mode scans|cloth|both]
        [--scenes N] [--light as-taken|dimmer|warmer|fading|shadow]
        [--camera as-taken|soft|noisy|coarse|compressed] [--art as-drawn|swapped|turned]
        [--leave-out first|second] [--json]

DIR is the validation set's root (default ``../shared/validation/vision`` beside the checkout),
as its README describes: ``pieces/library/registrations.json`` lists each face with a full-bleed
``scan`` and an ``on_cloth`` photo; ``pieces/sceneNN/`` holds ``pieces.jpg``, ``empty.jpg``,
``layout.json`` and ``truth.json``.

Two ways, each in a scratch library made with ``companion vision register``:

- ``scans``: registered from the scans, read with no empty frame;
- ``cloth``: registered from the cloth photos, read with ``--empty sceneNN/empty.jpg``.

Each registration image is also read back (``companion vision read IMAGE --json``, no
calibration): it is right when it gives one piece, of its own kind, face and front.

Each scene is read with ``companion vision read … --layout sceneNN/layout.json --json`` in a new
process, and scored as the README says: a reported piece (known or unknown) belongs to the
nearest true piece or distractor within 8 mm of its centre; a true piece is right when one known
report on it has its kind, face and front (no front when face down); a piece not reported, or
reported unknown only, is not right. A known report on a distractor or on nothing is *invented*,
and so is a second known report on a piece already read (the worst outcome, like a wrong call).
A known report on a piece that names another kind, face or front is *named wrongly*.

``--light`` reads each scene's photo as if the light had changed after the empty frame was
taken (the empty frame and the library as they are): each 8-bit value scaled, ``dimmer`` by
0.8, ``warmer`` by 0.88, 1 and 1.1 (blue, green, red), ``fading`` from 0.8 at the left edge to
1.1 at the right, ``shadow`` by 0.65 under a soft-edged ellipse over a third of the view.

``--camera`` reads each scene as another camera would have taken it (the photo and the empty
frame alike; the library as it is): ``soft`` blurred (Gaussian sigma 1.2 px), ``noisy`` with
noise added (sigma 6 levels), ``coarse`` at 0.6 of the size, ``compressed`` as a JPEG of
quality 40.

``--art`` reads the set as if its pieces had been drawn in other colours (every registration
image, photo and empty frame alike, as another library's pieces on another table):
``swapped`` with the blue and red channels swapped, ``turned`` with the hue turned by 120
degrees (OpenCV's 8-bit hue, 0-179, plus 60).

``--leave-out`` registers every other front of each kind only (in sorted name order, the
``first`` half leaving out the first, third, ... front, the ``second`` half the others; backs
are all registered), as if the pieces came from a library the table's owner had not registered
whole. A face-up piece of a front left out must not be named: it is counted apart, as *named*
when a known report on it names a registered front (the open-set promise broken), and is not
among the pieces scored right or wrong; the other pieces are scored as above.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SET = ROOT.parent / "shared" / "validation" / "vision"
MATCH_MM = 8.0
"""How far (mm) a report's centre may be from a true piece's or distractor's to be about it."""


def companion(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


def register(library: Path, entries: list[dict[str, Any]], images: list[Path]) -> None:
    """Every face in *entries* into *library*, each from its image in *images*."""
    for entry, image in zip(entries, images, strict=True):
        face = ["--back"] if entry["face"] == "back" else ["--front", entry["front"]]
        done = companion("vision", "register", str(image), "--library", str(library),
                         "--kind", entry["kind"], *face, "--shape", entry["shape"],
                         "--size-mm", str(entry["size_mm"]), "--json")
        if done.returncode != 0:
            raise SystemExit(f"register {image}: {done.stderr.strip()}")


LIGHTS = ("as-taken", "dimmer", "warmer", "fading", "shadow")
CAMERAS = ("as-taken", "soft", "noisy", "coarse", "compressed")
ARTS = ("as-drawn", "swapped", "turned")


def recoloured(image: Path, art: str, out: Path) -> Path:
    """*image* with its colours changed as *art* says (see the module's docstring), saved
    losslessly in *out* (in a folder named as *image*'s); *image* itself where art is as drawn."""
    if art == "as-drawn":
        return image
    import cv2
    import numpy as np

    pixels = cv2.imread(str(image))
    if art == "swapped":
        pixels = np.ascontiguousarray(pixels[:, :, ::-1])
    else:
        hsv = cv2.cvtColor(pixels, cv2.COLOR_BGR2HSV)
        hsv[:, :, 0] = (hsv[:, :, 0].astype(np.int32) + 60) % 180
        pixels = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    target = out / image.parent.name / f"{image.stem}.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(target), pixels)
    return target


def relit(photo: Path, light: str, out: Path) -> Path:
    """*photo* as it would look in another *light* (see the module's docstring), saved losslessly
    in *out*; *photo* itself where the light is as taken."""
    if light == "as-taken":
        return photo
    import cv2
    import numpy as np

    image = cv2.imread(str(photo)).astype(np.float32)
    h, w = image.shape[:2]
    if light == "dimmer":
        gain = np.full((1, 1, 3), 0.8, np.float32)
    elif light == "warmer":
        gain = np.array([[[0.88, 1.0, 1.1]]], np.float32)
    elif light == "fading":
        gain = np.linspace(0.8, 1.1, w, dtype=np.float32)[None, :, None]
    else:
        shade = np.zeros((h, w), np.float32)
        cv2.ellipse(shade, (int(w * 0.35), int(h * 0.4)), (int(w * 0.3), int(h * 0.22)), 25, 0, 360, 1.0, -1)
        gain = (1.0 - 0.35 * cv2.GaussianBlur(shade, (0, 0), w * 0.03))[..., None]
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{photo.parent.name}-{photo.stem}.png"
    cv2.imwrite(str(target), np.clip(image * gain, 0, 255).astype(np.uint8))
    return target


def retaken(photo: Path, camera: str, out: Path) -> Path:
    """*photo* as another *camera* would have taken it (see the module's docstring), saved in
    *out* (losslessly, but for ``compressed``); *photo* itself where the camera is as it was."""
    if camera == "as-taken":
        return photo
    import cv2
    import numpy as np

    image = cv2.imread(str(photo))
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{photo.parent.name}-{photo.stem}.png"
    if camera == "soft":
        image = cv2.GaussianBlur(image, (0, 0), 1.2)
    elif camera == "noisy":
        # each frame's own noise, the same on every run
        noise = np.random.default_rng(zlib.crc32(target.name.encode())).normal(0.0, 6.0, image.shape)
        image = np.clip(image + noise, 0, 255).astype(np.uint8)
    elif camera == "coarse":
        image = cv2.resize(image, None, fx=0.6, fy=0.6, interpolation=cv2.INTER_AREA)
    else:
        target = target.with_suffix(".jpg")
        cv2.imwrite(str(target), image, [cv2.IMWRITE_JPEG_QUALITY, 40])
        return target
    cv2.imwrite(str(target), image)
    return target


@dataclass
class Tally:
    pieces: int = 0
    right: int = 0
    invented: int = 0
    wrong: int = 0
    by_group: dict[str, list[int]] = field(default_factory=dict)  # group: [right, of]
    read_s: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    read_back: list[int] = field(default_factory=lambda: [0, 0])  # registration images: [right, of]
    left_out: list[int] = field(default_factory=lambda: [0, 0])  # pieces of a front left out: [named, of]

    def count(self, group: str, ok: bool) -> None:
        cell = self.by_group.setdefault(group, [0, 0])
        cell[0] += ok
        cell[1] += 1


def score_scene(reading: dict[str, Any], truth: dict[str, Any], tally: Tally, scene: str,
                left_out: frozenset[tuple[str, str]] = frozenset()) -> None:
    """Add one scene's reading to *tally* (the README's rule, see the module's docstring); a
    face-up piece whose (kind, front) is in *left_out* is counted apart."""
    targets = [("piece", p) for p in truth["pieces"]] + [("distractor", d) for d in truth["distractors"]]
    known_on: dict[int, list[dict[str, Any]]] = {}
    for report in reading["pieces"]:
        at = _nearest(report["center_mm"], targets)
        if at is None or targets[at][0] == "distractor":
            tally.invented += 1
            tally.misses.append(f"{scene}: invented {report['kind']}/{report['face']}/{report['front']} "
                                f"at {report['center_mm']}")
            continue
        known_on.setdefault(at, []).append(report)
    for i, (what, piece) in enumerate(targets):
        if what != "piece":
            continue
        reports = known_on.get(i, [])
        if piece["face"] == "up" and (piece["kind"], piece["front"]) in left_out:
            tally.invented += max(0, len(reports) - 1)
            tally.left_out[0] += bool(reports)
            tally.left_out[1] += 1
            if reports:
                said = ", ".join(f"{r['kind']}/{r['face']}/{r['front']}" for r in reports)
                tally.misses.append(f"{scene}: {piece['kind']}/up/{piece['front']} (left out) at "
                                    f"{piece['center_mm']} named {said}")
            continue
        ok = any(r["kind"] == piece["kind"] and r["face"] == piece["face"]
                 and (r["front"] if r["face"] == "up" else None) == piece["front"] for r in reports)
        tally.invented += max(0, len(reports) - 1)
        tally.wrong += bool(reports) and not ok
        tally.pieces += 1
        tally.right += ok
        covered = "covered" if piece.get("covered_frac", 0) > 0.02 else "alone"
        tally.count(f"{piece['kind']} {piece['face']}", ok)
        tally.count(covered, ok)
        if not ok:
            said = ", ".join(f"{r['kind']}/{r['face']}/{r['front']}" for r in reports) or "unknown or nothing"
            tally.misses.append(f"{scene}: {piece['kind']}/{piece['face']}/{piece['front']} at "
                                f"{piece['center_mm']} read as {said}")


def _nearest(centre: list[float], targets: list[tuple[str, dict[str, Any]]]) -> int | None:
    best, best_d = None, MATCH_MM
    for i, (_what, target) in enumerate(targets):
        d = math.dist(centre, target["center_mm"])
        if d <= best_d:
            best, best_d = i, d
    return best


def run_mode(mode: str, root: Path, scenes: list[Path], light: str = "as-taken",
             camera: str = "as-taken", art: str = "as-drawn", leave_out: str = "") -> Tally:
    entries = json.loads((root / "pieces" / "library" / "registrations.json").read_text())
    left_out = left_out_fronts(entries, leave_out)
    entries = [e for e in entries if e["face"] == "back" or (e["kind"], e["front"]) not in left_out]
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="validation-pieces-") as tmp:
        library = Path(tmp) / "library"
        drawn = Path(tmp) / "recoloured"
        images = [recoloured(root / entry["scan" if mode == "scans" else "on_cloth"], art, drawn / "library")
                  for entry in entries]
        register(library, entries, images)
        for scene in scenes:
            taken = retaken(recoloured(scene / "pieces.jpg", art, drawn), camera, Path(tmp) / "retaken")
            photo = relit(taken, light, Path(tmp) / "relit")
            args = ["vision", "read", str(photo), "--library", str(library),
                    "--layout", str(scene / "layout.json"), "--json"]
            if mode == "cloth":
                empty = recoloured(scene / "empty.jpg", art, drawn)
                args += ["--empty", str(retaken(empty, camera, Path(tmp) / "retaken"))]
            began = time.perf_counter()
            done = companion(*args)
            tally.read_s.append(time.perf_counter() - began)
            if done.returncode != 0:
                raise SystemExit(f"read {scene.name}: {done.stderr.strip()}")
            truth = json.loads((scene / "truth.json").read_text())
            score_scene(json.loads(done.stdout), truth, tally, scene.name, left_out)
        for entry, image in zip(entries, images, strict=True):  # each read back with no calibration
            done = companion("vision", "read", str(image), "--library", str(library), "--json")
            if done.returncode != 0:
                raise SystemExit(f"read {image}: {done.stderr.strip()}")
            pieces = json.loads(done.stdout)["pieces"]
            down = entry["face"] == "back"
            ok = [(p["kind"], p["face"], p.get("front")) for p in pieces] == [
                (entry["kind"], "down" if down else "up", None if down else entry["front"])]
            tally.read_back[0] += ok
            tally.read_back[1] += 1
            if not ok:
                tally.misses.append(f"{image} read back as {pieces or 'unknown or nothing'}")
    return tally


def left_out_fronts(entries: list[dict[str, Any]], half: str) -> frozenset[tuple[str, str]]:
    """The (kind, front) pairs that *half* (``first``, ``second`` or ``""``: none) leaves out."""
    if not half:
        return frozenset()
    start = 0 if half == "first" else 1
    out: set[tuple[str, str]] = set()
    for kind in sorted({e["kind"] for e in entries}):
        fronts = sorted(e["front"] for e in entries if e["kind"] == kind and e["face"] != "back")
        out.update((kind, front) for front in fronts[start::2])
    return frozenset(out)


def scene_dirs(root: Path, part: str, first: int = 0) -> list[Path]:
    """The set's ``<part>/sceneNN`` folders in order (only the first *first* when given)."""
    scenes = sorted(p for p in (root / part).glob("scene*") if p.is_dir())
    if not scenes:
        raise SystemExit(f"no scenes under {root / part}: give --set DIR")
    return scenes[:first] if first else scenes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--set", type=Path, default=DEFAULT_SET, metavar="DIR")
    parser.add_argument("--mode", choices=("scans", "cloth", "both"), default="both")
    parser.add_argument("--scenes", type=int, default=0, metavar="N", help="only the first N scenes")
    parser.add_argument("--misses", action="store_true", help="list every piece not read right")
    parser.add_argument("--light", choices=LIGHTS, default="as-taken",
                        help="read each photo as if the light had changed since the empty frame")
    parser.add_argument("--camera", choices=CAMERAS, default="as-taken",
                        help="read each scene as if another camera had taken it")
    parser.add_argument("--art", choices=ARTS, default="as-drawn",
                        help="read the set as if its pieces and tables were drawn in other colours")
    parser.add_argument("--leave-out", choices=("first", "second"), default="",
                        help="register every other front of each kind only")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    scenes = scene_dirs(args.set, "pieces", args.scenes)
    modes = ("scans", "cloth") if args.mode == "both" else (args.mode,)
    results = {mode: run_mode(mode, args.set, scenes, args.light, args.camera, args.art, args.leave_out)
               for mode in modes}
    if args.json:
        print(json.dumps({m: {"pieces": t.pieces, "right": t.right, "invented": t.invented, "wrong": t.wrong,
                              "by_group": t.by_group, "read_s_median": statistics.median(t.read_s),
                              "read_back": t.read_back, "left_out": t.left_out,
                              "misses": t.misses} for m, t in results.items()}, indent=1))
        return 0
    for mode, t in results.items():
        how = "scans, no empty frame" if mode == "scans" else "cloth photos, --empty"
        print(f"{how}: {t.right} / {t.pieces} right ({100 * t.right / t.pieces:.1f} %), "
              f"{t.invented} invented, {t.wrong} named wrongly; "
              f"read (process) median {statistics.median(t.read_s):.2f} s")
        for group, (ok, of) in sorted(t.by_group.items()):
            print(f"  {group:24s} {ok:4d} / {of:<4d} ({100 * ok / of:.0f} %)")
        print(f"  registration images read back as their own face: {t.read_back[0]} / {t.read_back[1]}")
        if args.leave_out:
            print(f"  pieces of a front left out: {t.left_out[0]} of {t.left_out[1]} named")
        if args.misses:
            print("\n".join(f"  - {m}" for m in t.misses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
