"""How right the piece reader is, and how fast: on synthetic tables with exact truth, and
on the real Set photographs.

Synthetic (``tests.support.synth_pieces.random_piece_scene``: 8-20 drawn coins, tiles and cards,
a quarter face down, some overlapping, a pen, a cup ring and blobs of clay, on felt,
gingham, dots or wood, random camera, light, noise, blur and JPEG): each frame is
calibrated from its table markers (the lens known), then read twice: with the
calibration alone, and with the empty-table frame too (``empty=``). A piece counts as
right when it is reported near its centre with its kind, face and front right; one not
reported (or reported unknown) counts as wrong. "Reported as known wrongly" counts
misread pieces and reports on distractors, on heaps of overlapping pieces, or on nothing.

Real photos (``tests/vision/data/set-game``): the 162 reference crops registered as
fronts of ``set-card`` (mirrored back first, see ``tests/vision/test_reader.py``), then
the 15 test crops and the 6 scenes (72 cards) read without a calibration.

Faces the library lacks: each synthetic frame is also read with a library of every other
front of each kind (``left_out_fronts``), and the Set photos with a library of two thirds
of the 81 faces. A piece of a left-out face must come back unknown; one reported as known
is the reader taking it for a look-alike.

Timing: 20-piece frames (seeds from 1000), read with the empty-table frame and the
markers found beforehand (as the app does, for its calibration).

``--art-seed N`` draws every piece's art from another seed (other colours, patterns and
layouts).

Run: .venv/bin/python benchmarks/piece_reading.py [--scenes 500] [--size 1280x720]
     [--first-seed 0] [--art-seed 0] [--timing-scenes 60] [--json]
(or benchmarks/vision_accuracy.py --pieces with the same options)
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the Set photos' loader is the tests'

from tests.support import synth_pieces  # noqa: E402
from tests.vision import set_game  # noqa: E402
from vision import markers  # noqa: E402
from vision.calibration import calibrate  # noqa: E402
from vision.errors import VisionError  # noqa: E402
from vision.library import Library  # noqa: E402
from vision.reading import FoundPiece, UnknownPiece, read  # noqa: E402

CARD_MM = (57.0, 88.0)
OUTCOMES = ("right", "misread", "unknown", "missed")


def _pct(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 2) if values else None


def _share(n: int, total: int) -> float | None:
    return round(n / total, 4) if total else None


def run_synthetic(scenes: int, size: tuple[int, int], first_seed: int, art_seed: int = 0) -> dict[str, Any]:
    """The synthetic figures (see the module's docstring)."""
    modes = ("calibrated", "calibrated+empty")
    outcomes: dict[str, dict[str, Counter[str]]] = {m: defaultdict(Counter) for m in modes}
    by_kind: dict[str, dict[str, Counter[str]]] = {m: defaultdict(Counter) for m in modes}
    by_cloth: dict[str, dict[str, Counter[str]]] = {m: defaultdict(Counter) for m in modes}
    extras: dict[str, Counter[str]] = {m: Counter() for m in modes}
    extra_labels: dict[str, Counter[str]] = {m: Counter() for m in modes}
    read_ms: dict[str, list[float]] = {m: [] for m in modes}
    pos_err: dict[str, list[float]] = {m: [] for m in modes}
    ang_err: dict[str, list[float]] = {m: [] for m in modes}
    render_ms: list[float] = []
    calibrate_ms: list[float] = []
    coin_px: list[float] = []
    misreads: list[str] = []
    failures: list[str] = []
    piece_count = Counter[str]()
    left_out = left_out_fronts(art_seed)
    partial = Counter[str]()
    with tempfile.TemporaryDirectory() as tmp:
        library = synth_pieces.make_library(Path(tmp) / "library", seed=art_seed)
        read(np.zeros((size[1], size[0], 3), np.uint8), library)  # prepares the references: not timed
        part = synth_pieces.make_library(Path(tmp) / "part", seed=art_seed, left_out=left_out)
        for seed in range(first_seed, first_seed + scenes):
            t0 = time.perf_counter()
            scene = synth_pieces.random_piece_scene(seed, size=size, art_seed=art_seed)
            render_ms.append((time.perf_counter() - t0) * 1000)
            for t in scene.pieces:
                piece_count["overlapping" if t.overlap > 0 else "alone"] += 1
            # a coin's diameter in the frame's pixels, at the middle of the table
            d = synth_pieces.piece_art(scene.art_seed)["coin"].size_mm[0]
            ends = scene.camera.project(np.array([[400 - d / 2, 250, 0.0], [400 + d / 2, 250, 0.0]]))
            coin_px.append(float(np.linalg.norm(ends[1] - ends[0])))
            try:
                t0 = time.perf_counter()
                seen = markers.detect(scene.image, scene.layout.dictionary)
                cal = calibrate(scene.image, scene.layout, scene.lens, seen)
                calibrate_ms.append((time.perf_counter() - t0) * 1000)
            except VisionError as exc:
                failures.append(f"seed {seed}: calibration failed: {exc}")
                for m in modes:
                    for t in scene.pieces:
                        outcomes[m]["overlapping" if t.overlap > 0 else "alone"]["missed"] += 1
                continue
            style = scene.cloth.split(", ")[-1] if ", " in scene.cloth else (
                "wood" if scene.cloth == "wood" else "plain")
            for m in modes:
                t0 = time.perf_counter()
                empty = scene.empty if m.endswith("empty") else None
                result = read(scene.image, library, calibration=cal, seen_markers=seen, empty=empty)
                read_ms[m].append((time.perf_counter() - t0) * 1000)
                score = synth_pieces.score_reading(scene, result)
                for o in score.pieces:
                    group = "overlapping" if o.truth.overlap > 0 else "alone"
                    if o.outcome == "misread":
                        misreads.append(f"{m}, seed {seed}: {o.truth.label} ({group}) read as {o.read_as}")
                    outcomes[m][group][o.outcome] += 1
                    by_kind[m][f"{o.truth.kind} {o.truth.face} {group}"][o.outcome] += 1
                    if group == "alone":
                        by_cloth[m][f"{style}{' (linen)' if 'linen' in scene.cloth else ''}"][o.outcome] += 1
                    if o.outcome == "right" and o.position_error_mm is not None:
                        pos_err[m].append(o.position_error_mm)
                        if o.angle_error_deg is not None:
                            ang_err[m].append(o.angle_error_deg)
                for where, label in score.extra:
                    extras[m][where] += 1
                    extra_labels[m][f"{where}: {label}"] += 1
            # the library without half the fronts: each left-out piece must come back unknown
            lacking = read(scene.image, part, calibration=cal, seen_markers=seen, empty=scene.empty)
            score = synth_pieces.score_reading(scene, lacking)
            for o in score.pieces:
                if o.truth.label in left_out:
                    partial["left_out"] += 1
                    if o.outcome == "misread":
                        partial["left_out_reported"] += 1
                        partial[f"{o.truth.label} read as {o.read_as}"] += 1
                else:
                    partial["kept"] += 1
                    partial["kept_right"] += o.outcome == "right"

    def table(counts: dict[str, Counter[str]]) -> dict[str, dict[str, Any]]:
        return {k: {"n": sum(c.values()), **{o: c[o] for o in OUTCOMES},
                    "right_share": _share(c["right"], sum(c.values()))} for k, c in sorted(counts.items())}

    reads: dict[str, Any] = {}
    for m in modes:
        groups = table(outcomes[m])
        total = sum(sum(c.values()) for c in outcomes[m].values())
        right = sum(c["right"] for c in outcomes[m].values())
        reads[m] = {
            "right_share": _share(right, total),
            "groups": groups,
            "reported_as_known_wrongly": {
                "misread_alone": outcomes[m]["alone"]["misread"],
                "misread_overlapping": outcomes[m]["overlapping"]["misread"],
                "on_distractor": extras[m]["distractor"], "on_heap": extras[m]["heap"],
                "phantom": extras[m]["phantom"], "which": dict(extra_labels[m].most_common(10))},
            "by_kind": table(by_kind[m]),
            "alone_by_cloth": table(by_cloth[m]),
            "position_error_mm_p50_p95": [_pct(pos_err[m], 50), _pct(pos_err[m], 95)],
            "angle_error_deg_p50_p95": [_pct(ang_err[m], 50), _pct(ang_err[m], 95)],
            "read_ms_p50": _pct(read_ms[m], 50), "read_ms_p99": _pct(read_ms[m], 99),
        }
    return {
        "scenes": scenes, "size": list(size), "first_seed": first_seed,
        "pieces": dict(piece_count), "calibration_failures": failures,
        "reads": reads,
        "misreads": misreads,
        "fronts_left_out": {"fronts": sorted(left_out), "pieces": partial["left_out"],
                            "reported_as_known": partial["left_out_reported"],
                            "as_what": {k: v for k, v in partial.most_common() if " read as " in k},
                            "kept_pieces": partial["kept"], "kept_right": partial["kept_right"]},
        "coin_diameter_px_p50": _pct(coin_px, 50), "art_seed": art_seed,
        "render_ms_p50": _pct(render_ms, 50), "calibrate_ms_p50": _pct(calibrate_ms, 50),
    }


def left_out_fronts(art_seed: int) -> frozenset[str]:
    """Every other front of each kind (``"kind/front"``): left out of a library to see that
    a face the library lacks is reported as unknown, not as a look-alike."""
    return frozenset(f"{name}/{front}" for name, art in synth_pieces.piece_art(art_seed).items()
                     for front in list(art.fronts)[1::2])


def run_timing(scenes: int, size: tuple[int, int], first_seed: int) -> dict[str, Any]:
    """Read time per frame with 20 pieces (and the empty-table frame), markers found once
    beforehand as the app does: the issue's speed target."""
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        library = synth_pieces.make_library(Path(tmp) / "library")
        prepared = False
        for seed in range(first_seed, first_seed + scenes):
            scene = synth_pieces.random_piece_scene(seed, size=size, count=(20, 20))
            seen = markers.detect(scene.image, scene.layout.dictionary)
            try:
                cal = calibrate(scene.image, scene.layout, scene.lens, seen)
            except VisionError:
                continue
            if not prepared:  # the references at the view's scale, as the app has them: not timed
                read(scene.image, library, calibration=cal, seen_markers=seen, empty=scene.empty)
                prepared = True
            t0 = time.perf_counter()
            read(scene.image, library, calibration=cal, seen_markers=seen, empty=scene.empty)
            times.append((time.perf_counter() - t0) * 1000)
    return {"frames": len(times), "pieces": 20, "size": list(size), "read_ms_p50": _pct(times, 50),
            "read_ms_p99": _pct(times, 99)}


# -- the real photos -------------------------------------------------------------------------------


def _read_set(library: Library) -> tuple[list[tuple[str, str, FoundPiece | UnknownPiece | None]],
                                         dict[str, dict[str, Any]], list[float]]:
    """Each Set card of the test crops and the scenes read with *library*: (where, its label,
    what was read there); each scene's size and item count; each scene's read time."""
    out: list[tuple[str, str, FoundPiece | UnknownPiece | None]] = []
    for path in sorted((set_game.SET_GAME / "crops_test").glob("*/*.jpg")):
        result = read(set_game.crop(path), library)
        found: list[FoundPiece | UnknownPiece] = [*result.pieces, *result.unknown]
        out.append(("crop", path.parent.name, found[0] if found else None))
    sizes: dict[str, dict[str, Any]] = {}
    times = []
    for txt in sorted((set_game.SET_GAME / "scenes").glob("*.txt")):
        photo = next(p for p in txt.parent.glob(txt.stem + ".*") if p.suffix in (".jpg", ".png"))
        image = set_game.scene(photo)
        labels = [set_game.label(line) for line in txt.read_text().splitlines() if line.strip()]
        t0 = time.perf_counter()
        result = read(image, library)
        times.append((time.perf_counter() - t0) * 1000)
        items: list[FoundPiece | UnknownPiece] = [*result.pieces, *result.unknown]
        order = set_game.reading_order([(it.center, i) for i, it in enumerate(items)])
        out += [(txt.stem, truth, items[i]) for truth, i in zip(labels, order, strict=False)]
        sizes[txt.stem] = {"found": len(items), "size": [image.shape[1], image.shape[0]]}
    return out, sizes, times


def _front(item: FoundPiece | UnknownPiece | None) -> str | None:
    return item.front if isinstance(item, FoundPiece) else None


def run_photos() -> dict[str, Any] | None:
    """The real-photo figures, or None without the photos."""
    if not (set_game.SET_GAME / "labels.csv").is_file():
        return None
    train = sorted((set_game.SET_GAME / "crops_train_sample").glob("*/*.jpg"))
    names = sorted({path.parent.name for path in train})
    left_out = set(names[::3])  # a third of the 81 faces, for the library that lacks them
    with tempfile.TemporaryDirectory() as tmp:
        library = Library.create(Path(tmp) / "library")
        part = Library.create(Path(tmp) / "part")
        for path in train:
            library.register("set-card", "rect", CARD_MM, set_game.crop(path), front=path.parent.name)
            if path.parent.name not in left_out:
                part.register("set-card", "rect", CARD_MM, set_game.crop(path), front=path.parent.name)
        readings, sizes, times = _read_set(library)
        partial, _, _ = _read_set(part)
    crops = [(truth, item) for where, truth, item in readings if where == "crop"]
    misses = [f"{where}: {truth} read as {_front(item) or 'unknown'}" for where, truth, item in readings
              if _front(item) != truth]
    scenes: dict[str, dict[str, Any]] = {}
    for where, truth, item in readings:
        if where != "crop":
            s = scenes.setdefault(where, {"cards": 0, **sizes[where], "identified": 0,
                                          "read_as_another_card": 0})
            s["cards"] += 1
            s["identified"] += _front(item) == truth
            s["read_as_another_card"] += _front(item) not in (None, truth)
    lacking = [(truth, _front(item)) for _, truth, item in partial if truth in left_out]
    return {
        "references": len(train),
        "crops": {"n": len(crops), "found": sum(item is not None for _, item in crops),
                  "identified": sum(_front(item) == truth for truth, item in crops)},
        "scenes": scenes,
        "scene_cards": sum(s["cards"] for s in scenes.values()),
        "scene_found": sum(s["found"] for s in scenes.values()),
        "scene_identified": sum(s["identified"] for s in scenes.values()),
        "scene_read_as_another_card": sum(s["read_as_another_card"] for s in scenes.values()),
        "scene_read_ms": [round(t, 1) for t in times],
        "misses": misses,
        "faces_left_out": {"faces": len(left_out), "cards": len(lacking),
                           "read_as_another_card": sum(got is not None for _, got in lacking),
                           "kept_cards": len(partial) - len(lacking),
                           "kept_identified": sum(_front(item) == truth for _, truth, item in partial
                                                  if truth not in left_out)},
    }


# -- report ----------------------------------------------------------------------------------------


def _print(out: dict[str, Any]) -> None:
    syn = out["synthetic"]
    print(f"synthetic: {syn['scenes']} scenes at {syn['size'][0]}x{syn['size'][1]}, pieces {syn['pieces']}, "
          f"calibration failures {len(syn['calibration_failures'])}")
    for mode, r in syn["reads"].items():
        print(f"\n[{mode}] right (kind+face+front; not found = wrong): {r['right_share']}")
        for g, c in r["groups"].items():
            print(f"  {g:12s} n={c['n']:5d} right {c['right_share']}  misread {c['misread']}  "
                  f"unknown {c['unknown']}  missed {c['missed']}")
        print(f"  reported as known wrongly: {r['reported_as_known_wrongly']}")
        print(f"  position error of right ones p50/p95 {r['position_error_mm_p50_p95']} mm, angle "
              f"{r['angle_error_deg_p50_p95']} deg; read p50 {r['read_ms_p50']} ms, "
              f"p99 {r['read_ms_p99']} ms")
        print("  by kind:")
        for k, c in r["by_kind"].items():
            print(f"    {k:28s} n={c['n']:5d} right {c['right_share']}  misread {c['misread']}  "
                  f"unknown {c['unknown']}  missed {c['missed']}")
        print("  pieces alone, by cloth:")
        for k, c in r["alone_by_cloth"].items():
            print(f"    {k:28s} n={c['n']:5d} right {c['right_share']}")
    print(f"\na coin across in the frame: p50 {syn['coin_diameter_px_p50']} px; art seed {syn['art_seed']}")
    for miss in syn["misreads"]:
        print(f"  MISREAD {miss}")
    lo = syn["fronts_left_out"]
    print(f"library without {len(lo['fronts'])} fronts ({', '.join(lo['fronts'])}): "
          f"{lo['reported_as_known']} of {lo['pieces']} pieces of those fronts reported as known "
          f"{lo['as_what']}; "
          f"{lo['kept_right']} of {lo['kept_pieces']} others right")
    print(f"render p50 {syn['render_ms_p50']} ms (frame and empty frame), "
          f"markers and calibrate p50 {syn['calibrate_ms_p50']} ms")
    timing = out.get("timing")
    if timing:
        print(f"read with {timing['pieces']} pieces at {timing['size'][0]}x{timing['size'][1]} (empty frame, "
              f"markers given): p50 {timing['read_ms_p50']} ms, p99 {timing['read_ms_p99']} ms over "
              f"{timing['frames']} frames")
    photos = out["photos"]
    if photos is None:
        print("\nreal photos: not found")
        return
    print(f"\nreal photos ({photos['references']} references): crops {photos['crops']['identified']}/"
          f"{photos['crops']['n']} identified ({photos['crops']['found']} found); scenes "
          f"{photos['scene_identified']}/{photos['scene_cards']} identified, {photos['scene_found']} found, "
          f"{photos['scene_read_as_another_card']} read as another card")
    for name, s in photos["scenes"].items():
        print(f"  {name}: {s['identified']}/{s['cards']} identified, {s['found']} found "
              f"({s['size'][0]}x{s['size'][1]})")
    for miss in photos["misses"]:
        print(f"  MISS {miss}")
    lo = photos["faces_left_out"]
    print(f"  library without {lo['faces']} of the 81 faces: {lo['read_as_another_card']} of {lo['cards']} "
          f"cards of those faces read as another card; {lo['kept_identified']} of {lo['kept_cards']} others "
          f"identified")
    print(f"  scene read ms: {photos['scene_read_ms']}")


def main(argv: list[str] | None = None) -> None:
    """Command line: see the module's docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", type=int, default=500)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--art-seed", type=int, default=0,
                        help="draw the pieces' art (and register it) from this seed")
    parser.add_argument("--timing-scenes", type=int, default=60, help="20-piece frames for the read time")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    w, h = (int(v) for v in args.size.lower().split("x"))
    t0 = time.perf_counter()
    synthetic = run_synthetic(args.scenes, (w, h), args.first_seed, args.art_seed)
    out = {"synthetic": synthetic,
           "timing": run_timing(args.timing_scenes, (w, h), 1000) if args.timing_scenes else None,
           "photos": run_photos(),
           "machine": f"{platform.machine()} {platform.python_implementation()} {platform.python_version()}",
           "seconds": 0.0}
    out["seconds"] = round(time.perf_counter() - t0, 1)
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        _print(out)
        print(f"\n{out['machine']}, {out['seconds']} s")


if __name__ == "__main__":
    main()
