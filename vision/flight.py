"""The Volatio edge check: does a placed template or dragon base touch the track's edge?

Each piece carries one or more markers. Their corners, seen in the frame, are taken to
the table plane at the piece's height (with a camera pose; the table's own plane without
one), a rigid fit of the piece's own marker corners onto them gives its pose, and its
outline against the learned track gives the signed clearance (:mod:`vision.geometry`).
Where the markers leave the contact point loose (a long template on one small marker) and the
verdict open, the piece's own outline in the frame corrects the pose when it is the surer
(:mod:`vision.outline`).

The verdict is ``uncertain`` only inside a band measured for that piece at that point:
the table calibration's error, the pose's scatter carried to the contact point (for markers,
their corners' scatter pooled over the frame's pieces, the piece's own where it is clearly
worse: a small marker far from the contact point turns a little rotation into millimetres),
the learned edge's own scatter, without a camera pose the parallax its height can cause, and
a margin where the learned edge is faint nearby. With a
lens calibration the band stays under :data:`MAX_BAND_MM`; a piece measured worse than that
(no lens, a hidden marker, blur) says so in ``note``, and its band is reported as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely

from vision import geometry, markers
from vision.calibration import TableCalibration
from vision.layout import Layout, PieceSpec
from vision.outline import fit_outline
from vision.track import Track

MAX_BAND_MM = 0.95
"""The precision the check is built for: a band wider than this gets a note saying why."""
SIGMAS = 3.0
"""The band is this many standard deviations (widened for a scatter estimated from few corners):
a verdict outside it is wrong less than 0.3 % of the time."""
OWN_SCATTER_SHARE = 4.0
"""A piece's own corner variance, divided by this, is the least its band assumes, however sharp the
rest of the frame (about the 99 % point of the ratio of two variance estimates of 5 and 20 degrees)."""
CORNER_FLOOR_MM = 0.04
"""The least scatter assumed for a corner, so a perfect fit on three points is not taken as exact."""
TRACK_SIGMA_MM = 0.15
"""The learned track's edge against the printed one, one standard deviation (mm): the flood and the
refinement place it to a fraction of a pixel, but print, blur and light move it a little."""
OUTLINE_WORTH_MM = 0.3
OPEN_MARGIN_MM = 1.0
"""A piece's own outline is fitted (:mod:`vision.outline`) where its markers leave the contact point
looser than OUTLINE_WORTH_MM (the band's pose part, mm), a long template on one small marker, and
the verdict open: the clearance within the markers' band and OPEN_MARGIN_MM more. A piece called
from its markers alone keeps their band."""
FAINT_NEAR_MM = 5.0
FAINT_MARGIN_MM = 1.0
"""Where the learned edge is faint within :data:`FAINT_NEAR_MM` of a piece's contact point (its place
there interpolated from the clear edge either side), the piece's band widens by this much."""
PARALLAX_FRACTION = 0.6
"""Without a pose: a piece's top shifts by up to height x (off-centre distance / camera height);
for an overhead camera whose view is about as wide as it is high, 0.6 of the height is a fair bound."""


@dataclass(frozen=True)
class PieceReading:
    """One piece found in a frame, against the track."""

    spec: PieceSpec
    outline_mm: np.ndarray
    x_mm: float
    y_mm: float
    theta_rad: float
    clearance_mm: float
    contact_mm: tuple[float, float]
    band_mm: float
    markers_seen: tuple[int, ...]
    note: str = ""

    @property
    def touches_edge(self) -> bool:
        return self.clearance_mm <= 0.0

    @property
    def verdict(self) -> str:
        if abs(self.clearance_mm) < self.band_mm:
            return "uncertain"
        return "touch" if self.touches_edge else "clear"

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "marker_id": self.spec.marker_id, "kind": self.spec.kind, "label": self.spec.label,
            "verdict": self.verdict, "touches_edge": self.touches_edge,
            "clearance_mm": round(self.clearance_mm, 2),
            "contact_mm": [round(self.contact_mm[0], 1), round(self.contact_mm[1], 1)],
            "band_mm": round(self.band_mm, 2),
            "pose_mm": [round(self.x_mm, 1), round(self.y_mm, 1),
                        round(float(np.degrees(self.theta_rad)), 2)],
        }
        if self.spec.speed is not None:
            doc["speed"] = self.spec.speed
        if self.note:
            doc["note"] = self.note
        return doc


@dataclass(frozen=True)
class FlightCheck:
    pieces: list[PieceReading]
    contacts: list[tuple[int, int]]
    unknown_markers: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"pieces": [p.to_json() for p in self.pieces],
                "contacts": [list(c) for c in self.contacts],
                "unknown_markers": self.unknown_markers}


def rigid_fit(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The rotation R and translation t that best take *src* onto *dst* (least squares,
    no scale: the pieces are rigid and their size is known), and the RMS residual."""
    cs, cd = src.mean(axis=0), dst.mean(axis=0)
    a, b = src - cs, dst - cd
    u, _s, vt = np.linalg.svd(a.T @ b)
    d = np.sign(np.linalg.det(vt.T @ u.T))
    rot = vt.T @ np.diag([1.0, d]) @ u.T
    t = cd - rot @ cs
    residual = dst - (src @ rot.T + t)
    return rot, t, float(np.sqrt(np.mean(np.sum(residual ** 2, axis=1))))


@dataclass(frozen=True)
class _Fit:
    """A piece's rigid fit to the markers of it seen: its marker corners in its own frame and on
    the table, and the fit."""

    ids: tuple[int, ...]
    own: np.ndarray
    table: np.ndarray
    rot: np.ndarray
    t: np.ndarray
    rms: float

    @property
    def dof(self) -> int:
        return 2 * len(self.own) - 3  # two coordinates a corner, three pose parameters

    @property
    def variance(self) -> float:
        """The scatter of one corner coordinate, estimated from this fit alone (mm²)."""
        return len(self.own) * self.rms ** 2 / self.dof


def fit_piece(spec: PieceSpec, seen: dict[int, np.ndarray], calibration: TableCalibration) -> _Fit:
    ids = tuple(sorted(m for m in spec.markers if m in seen))
    own = np.concatenate([spec.markers[m] for m in ids])
    table = calibration.to_table(np.concatenate([seen[m] for m in ids]), spec.height_mm)
    rot, t, rms = rigid_fit(own, table)
    return _Fit(ids, own, table, rot, t, rms)


def frame_scatter(fits: list[_Fit]) -> tuple[float, int]:
    """The corner scatter pooled over a frame's pieces (one camera, one focus): the variance of a
    corner coordinate (mm²) and its degrees of freedom."""
    dof = sum(f.dof for f in fits)
    return sum(f.variance * f.dof for f in fits) / max(dof, 1), dof


def band_factor(dof: int) -> float:
    """How many estimated standard deviations the band spans: :data:`SIGMAS`, widened for a scatter
    estimated from *dof* degrees of freedom (Student's t, by the Cornish-Fisher expansion)."""
    z = SIGMAS
    return z + (z ** 3 + z) / (4 * dof) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * dof ** 2)


def read_piece(spec: PieceSpec, seen: dict[int, np.ndarray], calibration: TableCalibration,
               track: Track, scatter: tuple[float, int] | None = None,
               fit: _Fit | None = None, image: np.ndarray | None = None) -> PieceReading:
    """One piece's pose, clearance and band from the markers of it in *seen*, given the frame's
    corner *scatter* (:func:`frame_scatter`; this piece's own when not given), its pose corrected by
    its own outline in *image* where that is found (:mod:`vision.outline`). The band widens where
    the learned edge is faint near the contact point."""
    fit = fit if fit is not None else fit_piece(spec, seen, calibration)
    rot, t, n = fit.rot, fit.t, len(fit.own)
    variance, dof = scatter if scatter is not None else (fit.variance, fit.dof)
    # a piece clearly worse than the frame (blurred, tilted) keeps a good part of its own scatter
    sigma_corner = max(np.sqrt(max(variance, fit.variance / OWN_SCATTER_SHARE)), CORNER_FLOOR_MM)
    centre = fit.table.mean(axis=0)
    spread = max(float(np.sum(np.sum((fit.table - centre) ** 2, axis=1))), 1e-9)

    def sigma_markers(point: np.ndarray) -> float:
        """The markers' pose's scatter levered to *point*."""
        return float(sigma_corner * np.sqrt(1.0 / n + float(np.sum((point - centre) ** 2)) / spread))

    sigma_cal = calibration.reprojection_error_mm
    parallax = 0.0 if calibration.has_pose else PARALLAX_FRACTION * spec.height_mm

    def band_of(sigma_pose: float, factor: float) -> float:
        return factor * float(np.sqrt(sigma_pose ** 2 + sigma_cal ** 2 + TRACK_SIGMA_MM ** 2)) + parallax

    outline = spec.outline_mm @ rot.T + t
    c = geometry.clearance(geometry.polygon(outline), track.region)
    contact = np.asarray(c.contact_mm)
    sigma_fit, factor = sigma_markers(contact), band_factor(dof)
    if (image is not None and factor * sigma_fit > OUTLINE_WORTH_MM
            and abs(c.clearance_mm) < band_of(sigma_fit, factor) + OPEN_MARGIN_MM):
        loose = factor * max(sigma_markers(p) for p in outline)
        refined = fit_outline(image, calibration, spec.outline_mm, spec.height_mm, rot, t, loose)
        # the outline's pose is taken where it is the surer of the two at the contact point
        if refined is not None and band_factor(refined.dof) * refined.sigma_at(contact) < factor * sigma_fit:
            rot, t = refined.rot, refined.t
            outline = spec.outline_mm @ rot.T + t
            c = geometry.clearance(geometry.polygon(outline), track.region)
            sigma_fit, factor = refined.sigma_at(np.asarray(c.contact_mm)), band_factor(refined.dof)
    band = band_of(sigma_fit, factor)
    note = ""
    if band > MAX_BAND_MM:  # reported as it is: a narrower band would make wrong calls
        why = ("no lens calibration to correct for its height" if parallax > 0 and parallax > band / 2
               else "only one of its markers in view" if len(fit.ids) < len(spec.markers)
               else "its markers are blurred" if fit.variance / OWN_SCATTER_SHARE > variance
               else "its markers are small for its length")
        note = f"measured to +-{band:.2f} mm only ({why}): the players decide near the edge"
    if track.weak_near(c.contact_mm, FAINT_NEAR_MM):
        band += FAINT_MARGIN_MM
        if abs(c.clearance_mm) < band:
            note = "the track's printed edge is faint here (see learn-track): the players decide"
    theta = float(np.arctan2(rot[1, 0], rot[0, 0]))
    return PieceReading(spec, outline, float(t[0]), float(t[1]), theta, c.clearance_mm, c.contact_mm, band,
                        fit.ids, note)


def check_flight(image: np.ndarray, layout: Layout, calibration: TableCalibration, track: Track,
                 seen: dict[int, np.ndarray] | None = None) -> FlightCheck:
    """Every template and dragon base in *image*, each against the track's edge, and which
    pieces touch a dragon."""
    if seen is None:
        seen = markers.detect(image, layout.dictionary)
    shapely.prepare(track.region)  # many pieces against one region: index it once
    specs: dict[int, PieceSpec] = {}
    unknown = []
    for mid in sorted(seen):
        spec = layout.piece_for(mid)
        if spec is not None:
            specs[spec.marker_id] = spec
        elif layout.table_marker(mid) is None:
            unknown.append(mid)
    chosen = [spec for _mid, spec in sorted(specs.items())]
    fits = [fit_piece(spec, seen, calibration) for spec in chosen]
    scatter = frame_scatter(fits) if fits else None
    readings = [read_piece(spec, seen, calibration, track, scatter, fit, image)
                for spec, fit in zip(chosen, fits, strict=True)]
    contacts = []
    polys = [geometry.polygon(r.outline_mm) for r in readings]
    for i in range(len(readings)):
        for j in range(i + 1, len(readings)):
            a, b = readings[i], readings[j]
            if "dragon" not in (a.spec.kind, b.spec.kind):
                continue
            if polys[i].intersects(polys[j]):
                contacts.append((a.spec.marker_id, b.spec.marker_id))
    return FlightCheck(readings, contacts, unknown)
