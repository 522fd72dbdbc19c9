"""The README's pictures of the Volatio edge check, made through the CLI as a user would.

    .venv/bin/python scripts/edge_pictures.py [--out docs/edge-check] [--seed 48]

A board and the same board with templates and dragon bases on it are drawn by the tests'
renderer (``tests/support/synth/``, 1280x720, its lens known as after ``calibrate-lens``);
then ``companion vision learn-track … --overlay track.jpg`` and ``companion vision check-flight
… --overlay flight.jpg`` draw the learned track and every verdict over the photos. Seed 48 shows
a touch, a clear and an uncertain call in one frame.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support import synth  # noqa: E402
from vision.lens import LensCalibration  # noqa: E402


def companion(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "companion", "vision", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"companion vision {args[0]}: {done.stderr.strip()}")
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "edge-check")
    parser.add_argument("--seed", type=int, default=48)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    empty = synth.random_scene(args.seed, size=(1280, 720), empty=True)
    scene = synth.random_scene(args.seed, size=(1280, 720))
    with tempfile.TemporaryDirectory(prefix="edge-pictures-") as tmp:
        d = Path(tmp)
        cv2.imwrite(str(d / "board.png"), empty.image)
        cv2.imwrite(str(d / "flight.jpg"), scene.image)
        LensCalibration(scene.camera.K, scene.camera.dist, scene.camera.size, 0.1, 20).save(d / "lens.json")
        seeds = [a for x, y in empty.seeds_mm for a in ("--seed", f"{x:.1f},{y:.1f}")]
        print(companion("learn-track", str(d / "board.png"), "--lens", str(d / "lens.json"), *seeds,
                        "--out", str(d / "track.json"), "--overlay", str(args.out / "track.jpg")).strip())
        print(companion("check-flight", str(d / "flight.jpg"), "--lens", str(d / "lens.json"),
                        "--track", str(d / "track.json"), "--overlay", str(args.out / "flight.jpg")).strip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
