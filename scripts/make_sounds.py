"""Make the touch app's own sounds: a short beep for each warning and the expiry alarm.

    python scripts/make_sounds.py [--out companion/ui/sounds]

The sounds are made here from sine tones (numpy and the standard library's ``wave``), so the
project ships nothing it did not make. The output is deterministic: running the script again
writes the same bytes, and a test checks the shipped files against it.

* ``warn-1.wav``: one mid beep, the first (earliest) warning.
* ``warn-2.wav``: two higher beeps, the second warning.
* ``warn-3.wav``: three higher still, the third and any later warning.
* ``alarm.wav``: the expiry alarm, a two-tone pulse train, one second long, made to loop.
"""

from __future__ import annotations

import argparse
import io
import wave
from pathlib import Path

import numpy as np

RATE_HZ = 22_050
"""Samples a second: plenty for beeps of 2.5 kHz and less, and half the size of 44.1 kHz."""
PEAK = 0.85
"""The loudest sample as a share of full scale: headroom against clipping in the mixer."""
RAMP_S = 0.008
"""Each tone fades in and out over this long, so it starts and stops without a click."""
OUT = Path(__file__).resolve().parents[1] / "companion" / "ui" / "sounds"


def tone(freq_hz: float, length_s: float) -> np.ndarray:
    """One tone: a sine with a little of its third harmonic (it carries better on a small
    speaker), faded in and out."""
    t = np.arange(int(RATE_HZ * length_s)) / RATE_HZ
    wave_ = np.sin(2 * np.pi * freq_hz * t) + 0.25 * np.sin(2 * np.pi * 3 * freq_hz * t)
    ramp = min(len(t) // 2, int(RATE_HZ * RAMP_S))
    envelope = np.ones(len(t))
    envelope[:ramp] = np.linspace(0.0, 1.0, ramp)
    envelope[len(t) - ramp:] = np.linspace(1.0, 0.0, ramp)
    return wave_ * envelope / 1.25


def silence(length_s: float) -> np.ndarray:
    return np.zeros(int(RATE_HZ * length_s))


def beeps(count: int, freq_hz: float, beep_s: float = 0.12, gap_s: float = 0.08) -> np.ndarray:
    parts: list[np.ndarray] = []
    for i in range(count):
        if i:
            parts.append(silence(gap_s))
        parts.append(tone(freq_hz, beep_s))
    return np.concatenate(parts + [silence(0.05)])


def alarm() -> np.ndarray:
    """Four pulses alternating high and low, then a pause: one second, which loops."""
    parts = []
    for freq in (1568.0, 1175.0, 1568.0, 1175.0):
        parts += [tone(freq, 0.11), silence(0.04)]
    body = np.concatenate(parts)
    return np.concatenate([body, silence(1.0 - len(body) / RATE_HZ)])


SOUNDS = {
    "warn-1.wav": lambda: beeps(1, 880.0, beep_s=0.18),
    "warn-2.wav": lambda: beeps(2, 1047.0),
    "warn-3.wav": lambda: beeps(3, 1319.0, beep_s=0.1, gap_s=0.06),
    "alarm.wav": alarm,
}
"""Every shipped sound by file name."""


def to_wav(samples: np.ndarray) -> bytes:
    """16-bit mono PCM at :data:`RATE_HZ`."""
    pcm = np.round(np.clip(samples, -1.0, 1.0) * PEAK * 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE_HZ)
        w.writeframes(pcm.tobytes())
    return buf.getvalue()


def make_all() -> dict[str, bytes]:
    """Every sound's file bytes, by file name."""
    return {name: to_wav(make()) for name, make in SOUNDS.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, data in make_all().items():
        (args.out / name).write_bytes(data)
        print(f"{args.out / name}: {len(data)} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
