"""Pieces drawn for the camera's tests: a picture pasted onto a frame, a lettered token."""

from __future__ import annotations

import math

import cv2
import numpy as np


def place(canvas: np.ndarray, piece: np.ndarray, center: tuple[float, float], angle_deg: float,
           width_px: float) -> None:
    """Paste *piece* onto *canvas*, *width_px* wide, centred at *center*, turned clockwise
    (on screen) by *angle_deg*."""
    h, w = piece.shape[:2]
    s = width_px / w
    t = math.radians(angle_deg)
    lin = s * np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    shift = np.asarray(center) - lin @ np.array([(w - 1) / 2, (h - 1) / 2])
    m = np.column_stack([lin, shift])
    size = (canvas.shape[1], canvas.shape[0])
    warped = cv2.warpAffine(piece, m, size, flags=cv2.INTER_AREA)
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, size, flags=cv2.INTER_LINEAR)
    canvas[mask > 127] = warped[mask > 127]


def token(letter: str, colour: tuple[int, int, int], size_px: int = 240) -> np.ndarray:
    """A drawn token: a coloured disc on black with a letter and a bar (which way is up)."""
    image = np.zeros((size_px, size_px, 3), np.uint8)
    c = size_px // 2
    cv2.circle(image, (c, c), c - 4, colour, -1, cv2.LINE_AA)
    cv2.putText(image, letter, (c - size_px // 5, c + size_px // 6), cv2.FONT_HERSHEY_SIMPLEX,
                size_px / 80, (20, 20, 20), max(2, size_px // 25), cv2.LINE_AA)
    cv2.rectangle(image, (c - size_px // 6, size_px // 10), (c + size_px // 6, size_px // 10 + size_px // 20),
                  (250, 250, 250), -1)
    return image
