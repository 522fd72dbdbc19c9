"""How right the Volatio edge check is, and how fast, on synthetic scenes with exact truth.

For each scene (``tests.support.synth.random_scene``: random camera pose, lens distortion, light
gradient, shadows, noise, blur, JPEG): the empty board is calibrated and its track learned
(``learn-track`` with the scene's seed points), then the frame with pieces is calibrated
again and checked (``check-flight``), and every piece's verdict and clearance are compared
with the truth. With ``--lens`` (the default) the camera's lens is known, as after
``companion vision calibrate-lens``; ``--no-lens`` runs without one.

Run: .venv/bin/python benchmarks/vision_accuracy.py [--scenes 500] [--size 1280x720] [--no-lens]
     [--first-seed 0] [--json]

``--pieces`` runs the piece reader's figures instead (``benchmarks/piece_reading.py``, the
same options as there).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the synthetic scenes are the tests'

from tests.support import synth  # noqa: E402
from vision import markers
from vision.calibration import Lens, calibrate
from vision.errors import VisionError
from vision.flight import check_flight
from vision.track import learn_track

DECISIVE_MM = 1.0


def run(scenes: int, size: tuple[int, int], use_lens: bool, first_seed: int) -> dict[str, Any]:
    cal_errors: list[float] = []
    bands: list[float] = []
    abs_errors: list[float] = []
    times_ms: list[float] = []
    decisive = right = uncertain_near = 0
    misses: list[dict[str, Any]] = []
    failures: list[str] = []
    unseen = pieces_total = 0
    for seed in range(first_seed, first_seed + scenes):
        empty = synth.random_scene(seed, size=size, empty=True)
        scene = synth.random_scene(seed, size=size)
        lens = Lens(scene.camera.K, scene.camera.dist) if use_lens else None
        try:
            board = calibrate(empty.image, empty.layout, lens)
            track = learn_track(empty.image, board, empty.layout, empty.seeds_mm)
        except VisionError as exc:
            failures.append(f"seed {seed}: learning failed: {exc}")
            continue
        start = time.perf_counter()
        seen = markers.detect(scene.image, scene.layout.dictionary)
        try:
            cal = calibrate(scene.image, scene.layout, lens, seen)
        except VisionError as exc:
            failures.append(f"seed {seed}: calibration failed: {exc}")
            continue
        result = check_flight(scene.image, scene.layout, cal, track, seen)
        times_ms.append((time.perf_counter() - start) * 1000)
        cal_errors.append(cal.reprojection_error_mm)
        found = {r.spec.marker_id: r for r in result.pieces}
        for truth in scene.pieces:
            pieces_total += 1
            r = found.get(truth.spec.marker_id)
            if r is None:
                unseen += 1
                continue
            abs_errors.append(abs(r.clearance_mm - truth.clearance_mm))
            bands.append(r.band_mm)
            if abs(truth.clearance_mm) >= DECISIVE_MM:
                decisive += 1
                want = "touch" if truth.clearance_mm <= 0 else "clear"
                if r.verdict == want:
                    right += 1
                else:
                    misses.append({"seed": seed, "piece": truth.spec.label,
                                   "truth_mm": round(truth.clearance_mm, 2),
                                   "measured_mm": round(r.clearance_mm, 2), "band_mm": round(r.band_mm, 2),
                                   "verdict": r.verdict})
            elif r.verdict == "uncertain":
                uncertain_near += 1
    errs = sorted(abs_errors)
    return {
        "scenes": scenes, "size": f"{size[0]}x{size[1]}", "lens": use_lens,
        "pieces": pieces_total, "pieces_not_found": unseen, "failures": failures,
        "verdict_decisive_cases": decisive, "verdict_right": right, "verdict_misses": misses,
        "uncertain_within_1mm": uncertain_near,
        "clearance_mae_mm": round(statistics.fmean(errs), 3) if errs else None,
        "clearance_p99_mm": round(errs[int(0.99 * (len(errs) - 1))], 3) if errs else None,
        "clearance_max_mm": round(errs[-1], 3) if errs else None,
        "band_mm_p50": round(statistics.median(bands), 3) if bands else None,
        "band_mm_p99": round(float(np.percentile(bands, 99)), 3) if bands else None,
        "bands_over_0_95": sum(b > 0.95 for b in bands),
        "calibration_error_mm_median": round(statistics.median(cal_errors), 3) if cal_errors else None,
        "calibration_error_mm_max": round(max(cal_errors), 3) if cal_errors else None,
        "check_ms_p50": round(statistics.median(times_ms), 1) if times_ms else None,
        "check_ms_p99": round(float(np.percentile(times_ms, 99)), 1) if times_ms else None,
    }


def main() -> None:
    if "--pieces" in sys.argv[1:]:
        from piece_reading import main as pieces_main  # the script beside this one

        pieces_main([a for a in sys.argv[1:] if a != "--pieces"])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=500)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--no-lens", dest="lens", action="store_false")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    report = run(args.scenes, (w, h), args.lens, args.first_seed)
    report["machine"] = f"{platform.machine()}, Python {platform.python_version()}"
    if args.json:
        print(json.dumps(report, indent=1))
        return
    for key, value in report.items():
        if key in ("verdict_misses", "failures"):
            print(f"{key}: {len(value)}")
            for item in value[:20]:
                print(f"   {item}")
        else:
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
