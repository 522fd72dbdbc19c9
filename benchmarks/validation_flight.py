"""The Volatio edge check on the independent renderer's validation scenes, through the CLI contract.

    .venv/bin/python benchmarks/validation_flight.py [--set DIR] [--scenes N] [--misses] [--json]
        [--overlays DIR] [--timing RUNS]

DIR is the validation set's root (default ``../shared/validation/vision`` beside the checkout);
``flight/sceneNN/`` holds ``learn.jpg`` (the empty board), ``flight.jpg`` (the board with
templates and dragon bases), ``layout.json`` and ``truth.json``, as its README describes.

Per scene, each command in a new process: ``companion vision learn-track learn.jpg --layout …
--seed X,Y … --out TRACK.json --json`` with the truth's seed points, then ``companion vision
check-flight flight.jpg --layout … --track TRACK.json --json``. Scored as the set's README says:
every piece whose true clearance is at least 1 mm either way must get the right verdict
(``uncertain`` is not right, the wrong ``touch`` or ``clear`` is the worst outcome); the
clearance's mean absolute error over the pieces reported; the learned track against the true
one: the area of their intersection over their union (IoU) and the mean distance from points
every 1 mm along the true edge to the learned edge. A track that ``learn-track`` refuses is
counted as refused with its reason, and that scene's pieces as not right.

``--timing RUNS`` also times ``check-flight``'s work in this process, as the app does it for each
frame (marker detection, calibration and the check against the learned track; the image already
decoded): each scene's frame RUNS times, its median taken; the median scene at each size printed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import shapely
from shapely.geometry import Polygon
from validation_pieces import DEFAULT_SET, companion, scene_dirs  # the script beside this one

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # --timing runs the checker in process

DECISIVE_MM = 1.0
"""A piece whose true clearance is at least this far either way must be called."""


@dataclass
class Tally:
    decisive: int = 0
    right: int = 0
    wrong: int = 0
    uncertain: int = 0
    errors_mm: list[float] = field(default_factory=list)
    tracks: list[dict[str, Any]] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)


def edge_distance_mm(true: Polygon, learned: Polygon) -> float:
    """Mean distance from points every 1 mm along *true*'s rings to *learned*'s boundary."""
    edge = learned.boundary
    dists = []
    for ring in [true.exterior, *true.interiors]:
        n = max(int(ring.length), 4)
        pts = [ring.interpolate(i / n, normalized=True) for i in range(n)]
        dists += [edge.distance(p) for p in pts]
    return statistics.fmean(dists)


def _polygonal(poly: Polygon) -> Any:
    """*poly* made valid, its polygons only (a self-crossing ring also gives lines)."""
    fixed = shapely.make_valid(poly)
    parts = shapely.get_parts(fixed)
    return shapely.unary_union([p for p in parts if p.geom_type in ("Polygon", "MultiPolygon")])


def frame_ms(scene: Path, track_file: Path, runs: int) -> float:
    """The median time (ms) of detecting the markers, calibrating and checking *scene*'s flight frame."""
    from vision import markers
    from vision.calibration import calibrate
    from vision.flight import check_flight
    from vision.layout import load_layout
    from vision.library.files import read_image
    from vision.track import load_track

    image, layout, track = read_image(scene / "flight.jpg"), load_layout(scene / "layout.json"), \
        load_track(track_file)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        seen = markers.detect(image, layout.dictionary)
        check_flight(image, layout, calibrate(image, layout, None, seen), track, seen)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def score_scene(scene: Path, tmp: Path, tally: Tally, overlays: Path | None) -> None:
    truth = json.loads((scene / "truth.json").read_text())
    layout = str(scene / "layout.json")
    track_file = tmp / f"{scene.name}-track.json"
    seeds = [a for s in truth["seeds_mm"] for a in ("--seed", f"{s[0]},{s[1]}")]
    extra = ["--overlay", str(overlays / f"{scene.name}-learn.png")] if overlays else []
    learned = companion("vision", "learn-track", str(scene / "learn.jpg"), "--layout", layout, *seeds,
                        "--out", str(track_file), "--json", *extra)
    rings = truth["track"]["rings"]
    true_track = Polygon(rings[0], rings[1:])
    decisive = [p for p in truth["pieces"] if abs(p["clearance_mm"]) >= DECISIVE_MM]
    if learned.returncode != 0:
        reason = learned.stderr.strip().splitlines()[-1] if learned.stderr.strip() else "?"
        tally.tracks.append({"scene": scene.name, "refused": reason})
        tally.decisive += len(decisive)
        tally.misses.append(f"{scene.name}: track refused: {reason}")
        return
    doc = json.loads(track_file.read_text())
    polys = doc["polygons_mm"]
    track = _polygonal(Polygon(polys[0], polys[1:]))  # scored as drawn, valid or not
    iou = shapely.intersection(track, true_track).area / shapely.union(track, true_track).area
    tally.tracks.append({"scene": scene.name, "iou": round(iou, 4),
                         "edge_mm": round(edge_distance_mm(true_track, track), 3)})
    extra = ["--overlay", str(overlays / f"{scene.name}-flight.png")] if overlays else []
    checked = companion("vision", "check-flight", str(scene / "flight.jpg"), "--layout", layout,
                        "--track", str(track_file), "--json", *extra)
    if checked.returncode != 0:
        reason = checked.stderr.strip().splitlines()[-1] if checked.stderr.strip() else "?"
        tally.tracks[-1]["check_refused"] = reason
        tally.decisive += len(decisive)
        tally.misses.append(f"{scene.name}: check-flight refused: {reason}")
        return
    found = {p["marker_id"]: p for p in json.loads(checked.stdout)["pieces"]}
    for piece in truth["pieces"]:
        got = found.get(piece["marker_id"])
        true_mm = piece["clearance_mm"]
        if got is not None:
            tally.errors_mm.append(abs(got["clearance_mm"] - true_mm))
        if abs(true_mm) < DECISIVE_MM:
            continue
        tally.decisive += 1
        want = "touch" if true_mm < 0 else "clear"
        verdict = got["verdict"] if got else "not found"
        if verdict == want:
            tally.right += 1
            continue
        tally.wrong += verdict in ("touch", "clear")
        tally.uncertain += verdict == "uncertain"
        said = f"{verdict} {got['clearance_mm']:+.2f} mm (±{got['band_mm']})" if got else verdict
        tally.misses.append(f"{scene.name}: marker {piece['marker_id']} ({piece['kind']}) true "
                            f"{true_mm:+.2f} mm read {said}" + (f" - {got['note']}" if got and "note" in got
                                                                  else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--set", type=Path, default=DEFAULT_SET, metavar="DIR")
    parser.add_argument("--scenes", type=int, default=0, metavar="N", help="only the first N scenes")
    parser.add_argument("--misses", action="store_true", help="list every piece not called right")
    parser.add_argument("--overlays", type=Path, metavar="DIR", help="write each scene's pictures here")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--timing", type=int, default=0, metavar="RUNS",
                        help="time each learned scene's check in process, RUNS times")
    args = parser.parse_args(argv)
    scenes = scene_dirs(args.set, "flight", args.scenes)
    if args.overlays:
        args.overlays.mkdir(parents=True, exist_ok=True)
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="validation-flight-") as tmp:
        for scene in scenes:
            score_scene(scene, Path(tmp), tally, args.overlays)
        timing: dict[str, list[float]] = {}
        for scene in scenes if args.timing else []:
            track_file = Path(tmp) / f"{scene.name}-track.json"
            if track_file.exists():
                size = "x".join(str(v) for v in json.loads((scene / "truth.json").read_text())["resolution"])
                timing.setdefault(size, []).append(frame_ms(scene, track_file, args.timing))
    learned = [t for t in tally.tracks if "iou" in t]
    mae = statistics.fmean(tally.errors_mm) if tally.errors_mm else float("nan")
    if args.json:
        print(json.dumps({"decisive": tally.decisive, "right": tally.right, "wrong": tally.wrong,
                          "uncertain": tally.uncertain, "clearance_mae_mm": round(mae, 3),
                          "tracks": tally.tracks, "misses": tally.misses,
                          "frame_ms_median": {k: round(statistics.median(v), 1) for k, v in timing.items()}},
                         indent=1))
        return 0
    print(f"decisive verdicts right: {tally.right} / {tally.decisive}; wrong calls: {tally.wrong}; "
          f"uncertain: {tally.uncertain}; clearance MAE {mae:.3f} mm over {len(tally.errors_mm)} pieces")
    print(f"tracks: {len(learned)} learned, {len(tally.tracks) - len(learned)} refused; "
          f"within 0.3 mm: {sum(t['edge_mm'] <= 0.3 for t in learned)}")
    for t in tally.tracks:
        print(f"  {t['scene']}: " + (f"IoU {t['iou']:.4f}, edge {t['edge_mm']:.3f} mm" if "iou" in t
                                     else f"refused: {t['refused']}"))
    if args.misses:
        print("\n".join(f"  - {m}" for m in tally.misses))
    for size, times in sorted(timing.items()):
        print(f"check-flight in process, {size}: {statistics.median(times):.1f} ms at the median of "
              f"{len(times)} frames (each its median of {args.timing} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
