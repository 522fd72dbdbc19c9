"""``companion vision``: the overhead camera: markers, calibration, the Volatio edge check, the
piece reader."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from companion.cli.common import EXIT_OK, UsageError
from companion.config import load_config
from companion.errors import InvalidInput


def register(commands: Any) -> None:
    """Adds this group's subcommands to the ``companion`` parser's *commands*."""
    vision = commands.add_parser("vision",
                                 help="the overhead camera: markers, calibration, the Volatio edge check")
    acts = vision.add_subparsers(dest="action", metavar="ACTION", required=True)

    def layout_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--layout", type=Path, metavar="L.json",
                       help="the table layout (default: the Volatio set's, shipped with the app)")
        p.add_argument("--lens", type=Path, metavar="LENS.json", help="a lens calibration (calibrate-lens)")
        p.add_argument("--json", action="store_true", help="answer in JSON")

    cal = acts.add_parser("calibrate", help="image -> table homography from the table markers")
    cal.add_argument("image", type=Path, metavar="IMAGE")
    layout_arg(cal)
    cal.add_argument("--out", type=Path, metavar="CAL.json", help="save the calibration here")
    cal.set_defaults(run=run_vision_calibrate)

    learn = acts.add_parser("learn-track", help="the drivable region from a frame of the empty board")
    learn.add_argument("image", type=Path, metavar="IMAGE")
    layout_arg(learn)
    learn.add_argument("--seed", action="append", required=True, metavar="X,Y",
                       help="a point inside the track, in table mm (repeat for more)")
    learn.add_argument("--out", type=Path, required=True, metavar="TRACK.json",
                       help="where to save the track")
    learn.add_argument("--overlay", type=Path, metavar="FILE.png",
                       help="draw the learned track (or where it failed) over the photo, into this file")
    learn.set_defaults(run=run_vision_learn_track)

    check = acts.add_parser("check-flight", help="does each template and dragon base touch the track's edge")
    check.add_argument("image", type=Path, metavar="IMAGE")
    layout_arg(check)
    check.add_argument("--track", type=Path, required=True, metavar="TRACK.json", help="from learn-track")
    check.add_argument("--calibration", type=Path, metavar="CAL.json",
                       help="used when the frame shows too few table markers (a hand over them)")
    check.add_argument("--overlay", type=Path, metavar="FILE.png",
                       help="draw the track and each piece's outline, verdict and clearance over the photo, "
                            "into this file")
    check.set_defaults(run=run_vision_check_flight)

    piece = acts.add_parser("learn-template",
                            help="measure a real template's (or base's) outline from a photo")
    piece.add_argument("image", type=Path, metavar="IMAGE")
    layout_arg(piece)
    piece.add_argument("--marker", type=int, required=True, metavar="ID", help="the piece's marker id")
    piece.add_argument("--height", type=float, metavar="MM", help="its top's height (default: the layout's)")
    piece.add_argument("--out", type=Path, metavar="L.json",
                       help="write the layout with this outline in it (default: only print the outline)")
    piece.set_defaults(run=run_vision_learn_template)

    reg = acts.add_parser("register", help="add a piece's front or back to a piece library")
    reg.add_argument("image", type=Path, metavar="IMAGE", nargs="?",
                     help="a photo of the piece alone, a crop of it, or one of it on the registration square")
    reg.add_argument("--camera", nargs="?", const="", metavar="SOURCE",
                     help="take the photo with the camera (default: the config's camera.source); the piece "
                          "lies on the registration square (`companion vision markers --register-square`)")
    reg.add_argument("--library", type=Path, required=True, metavar="DIR", help="the library (made if new)")
    reg.add_argument("--kind", required=True, metavar="KIND", help="the kind of piece, like drakon-coin")
    face = reg.add_mutually_exclusive_group(required=True)
    face.add_argument("--front", metavar="NAME", help="this image is the front called NAME")
    face.add_argument("--back", action="store_true", help="this image is the kind's back")
    reg.add_argument("--shape", required=True, choices=("disc", "rect"))
    reg.add_argument("--size-mm", required=True, metavar="W[xH]", help="its real size, like 25 or 57x88")
    reg.add_argument("--json", action="store_true", help="answer in JSON")
    reg.set_defaults(run=run_vision_register)

    empty = acts.add_parser("remember-empty", help="save a frame of the empty table: the app then reads "
                                                   "pieces as what differs from it")
    empty.add_argument("--camera", default="", metavar="SOURCE", help="default: the config's camera.source")
    empty.add_argument("--json", action="store_true", help="answer in JSON")
    empty.set_defaults(run=run_vision_remember_empty)

    read = acts.add_parser("read", help="every library piece in a photo: kind, face, which front")
    read.add_argument("image", type=Path, metavar="IMAGE")
    read.add_argument("--library", type=Path, required=True, metavar="DIR")
    read.add_argument("--layout", type=Path, metavar="L.json",
                      help="with it, positions come back in table mm (the table markers must show)")
    read.add_argument("--lens", type=Path, metavar="LENS.json", help="a lens calibration")
    read.add_argument("--empty", type=Path, metavar="EMPTY.png",
                      help="the same view without pieces (as remember-empty saves it): pieces are then "
                           "what differs from it, which a patterned cloth needs")
    read.add_argument("--json", action="store_true", help="answer in JSON")
    read.set_defaults(run=run_vision_read)

    sheet = acts.add_parser("markers", help="a printable sheet (PNG and PDF, A4, true size) of every marker")
    sheet.add_argument("--out", type=Path, required=True, metavar="FILE", help="FILE.png and FILE.pdf")
    sheet.add_argument("--register-square", action="store_true",
                       help="the registration square instead: a piece laid on it is registered with "
                            "`companion vision register --camera`")
    sheet.add_argument("--layout", type=Path, metavar="L.json", help="the table layout (default: Volatio's)")
    sheet.add_argument("--dpi", type=int, default=300, choices=(150, 300, 600), help="print resolution")
    sheet.add_argument("--json", action="store_true", help="answer in JSON")
    sheet.set_defaults(run=run_vision_markers)

    lens = acts.add_parser("calibrate-lens", help="the lens from 15-30 photos of the printed ChArUco board")
    lens.add_argument("images", type=Path, nargs="*", metavar="IMAGE")
    lens.add_argument("--out", type=Path, metavar="LENS.json", help="save the lens calibration here")
    lens.add_argument("--board", type=Path, metavar="FILE",
                      help="instead: write the ChArUco board to print (FILE.png and FILE.pdf, A4)")
    lens.add_argument("--json", action="store_true", help="answer in JSON")
    lens.set_defaults(run=run_vision_calibrate_lens)


def _vision_inputs(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """The frame, the layout and the lens (or None) the arguments name."""
    from vision.calibration import Lens
    from vision.layout import load_layout
    from vision.sources import ImageSource

    layout = load_layout(args.layout)
    lens = Lens.load(args.lens) if args.lens is not None else None
    with ImageSource(args.image) as source:
        image = source.read()
    return image, layout, lens


def _answer(args: argparse.Namespace, doc: dict[str, Any], text: str) -> None:
    print(json.dumps(doc) if args.json else text)


def run_vision_calibrate(args: argparse.Namespace) -> int:
    from vision.calibration import calibrate

    image, layout, lens = _vision_inputs(args)
    cal = calibrate(image, layout, lens)
    if args.out is not None:
        cal.save(args.out)
    doc = {"reprojection_error_mm": round(cal.reprojection_error_mm, 4),
           "markers_found": list(cal.markers_found),
           "homography": [[float(v) for v in row] for row in cal.homography]}
    _answer(args, doc, f"table calibrated from markers {list(cal.markers_found)}: "
                       f"reprojection error {cal.reprojection_error_mm:.3f} mm"
                       + (f"; saved to {args.out}" if args.out else ""))
    return EXIT_OK


def _seeds(values: list[str]) -> list[tuple[float, float]]:
    seeds = []
    for v in values:
        try:
            x, y = (float(p) for p in v.split(","))
        except ValueError:
            raise InvalidInput("--seed", v, "must be X,Y in table mm, like 400,250") from None
        seeds.append((x, y))
    return seeds


def run_vision_learn_track(args: argparse.Namespace) -> int:
    from vision.calibration import calibrate
    from vision.errors import TrackRefused
    from vision.overlay import draw_track, save_picture
    from vision.track import learn_track, save_track, track_to_json

    seeds = _seeds(args.seed)
    image, layout, lens = _vision_inputs(args)
    cal = calibrate(image, layout, lens)
    try:
        track = learn_track(image, cal, layout, seeds)
    except TrackRefused as exc:
        if args.overlay is not None:
            save_picture(args.overlay, draw_track(image, cal, None, seeds, str(exc), exc.at_mm))
        raise
    if args.overlay is not None:
        save_picture(args.overlay, draw_track(image, cal, track, seeds))
    save_track(track, args.out)
    doc = track_to_json(track)
    faint = f"; faint at {len(track.weak_mm)} place(s)" if len(track.weak_mm) else ""
    _answer(args, doc, f"track: {track.region.area / 1e6:.4f} m², {len(track.region.interiors)} hole(s)"
                       f"{faint}; saved to {args.out}")
    return EXIT_OK


def run_vision_check_flight(args: argparse.Namespace) -> int:
    from vision import markers
    from vision.calibration import TableCalibration, calibrate
    from vision.errors import CalibrationError
    from vision.flight import check_flight
    from vision.track import load_track

    image, layout, lens = _vision_inputs(args)
    track = load_track(args.track)
    seen = markers.detect(image, layout.dictionary)
    try:
        cal = calibrate(image, layout, lens, seen)
    except CalibrationError:
        if args.calibration is None:
            raise
        cal = TableCalibration.load(args.calibration)  # markers hidden: trust the saved one
    result = check_flight(image, layout, cal, track, seen)
    if args.overlay is not None:
        from vision.overlay import draw_flight, save_picture

        save_picture(args.overlay, draw_flight(image, cal, track, result))
    lines = [f"{p.spec.label:<14} {p.verdict:<9} clearance {p.clearance_mm:+7.2f} mm (±{p.band_mm:.2f})"
             + (f"  {p.note}" if p.note else "") for p in result.pieces]
    lines += [f"contact: {a} and {b}" for a, b in result.contacts]
    _answer(args, result.to_json(), "\n".join(lines) or "no pieces in view")
    return EXIT_OK


def run_vision_learn_template(args: argparse.Namespace) -> int:
    from vision.calibration import calibrate
    from vision.layout import layout_to_json, parse_layout
    from vision.pieces import measure_outline

    image, layout, lens = _vision_inputs(args)
    cal = calibrate(image, layout, lens)
    found = measure_outline(image, cal, layout, args.marker, args.height)
    if args.out is not None:
        doc = layout_to_json(layout)
        entry = next((p for p in doc["pieces"] if p["marker_id"] == args.marker
                      or any(m["id"] == args.marker for m in p.get("markers", []))), None)
        if entry is None:
            raise InvalidInput("--marker", args.marker,
                               "is no piece's marker in the layout: add the piece first")
        entry["outline_mm"] = found["outline_mm"]
        parse_layout(doc, str(args.out))  # the result must be a layout this program reads
        try:
            args.out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            raise InvalidInput("--out", str(args.out), f"cannot write it ({exc.strerror})") from None
    saved = f"; written to {args.out}" if args.out else ""
    _answer(args, found, f"marker {args.marker}: outline of {len(found['outline_mm'])} points, "
                         f"{found['area_mm2'] / 100:.1f} cm²{saved}")
    return EXIT_OK


def _size_mm(text: str) -> tuple[float, float]:
    try:
        parts = [float(v) for v in text.lower().split("x")]
    except ValueError:
        parts = []
    if len(parts) not in (1, 2) or not all(0 < v <= 1000 for v in parts):
        raise InvalidInput("--size-mm", text, "must be W or WxH in mm, like 25 or 57x88")
    return (parts[0], parts[-1])


def run_vision_register(args: argparse.Namespace) -> int:
    from vision import register_square
    from vision.library import Library, PieceKind
    from vision.sources import ImageSource, open_source

    size = _size_mm(args.size_mm)
    if (args.image is None) == (args.camera is None):
        raise InvalidInput("IMAGE", None, "give a photo of the piece, or --camera to take one (not both)")
    if args.camera is not None:
        spec = args.camera or load_config(args.config)["camera.source"]
        with open_source(spec) as source:
            image = source.read()
    else:
        with ImageSource(args.image) as source:
            image = source.read()
    flat = register_square.flatten(image)
    if flat is not None:  # the piece on the registration square: a top-down view at a known scale
        image = register_square.check_piece(flat, PieceKind(args.kind, args.shape, size))
    elif args.camera is not None:
        raise InvalidInput("--camera", args.camera or "camera.source",
                           "the registration square is not in view: print it with `companion vision markers "
                           "--register-square`, lay the piece on it and put it under the camera")
    library = Library.load(args.library) if (args.library / "library.json").exists() \
        else Library.create(args.library)
    saved = library.register(args.kind, args.shape, size, image,
                             **({"back": True} if args.back else {"front": args.front}))
    face = "back" if args.back else f"front {args.front!r}"
    _answer(args, {"kind": args.kind, "face": "back" if args.back else "front", "front": args.front,
                   "file": str(saved)}, f"{args.kind}: {face} saved as {saved}")
    return EXIT_OK


def run_vision_remember_empty(args: argparse.Namespace) -> int:
    """The app's ``vision/empty.png``, from the camera: the table cleared of pieces."""
    from vision.sources import open_source
    from vision.table_camera import TableCamera

    config = load_config(args.config)
    spec = args.camera or config["camera.source"]
    with open_source(spec) as source:
        frame = source.read()
    saved = TableCamera(spec, config.database_path.parent / "vision").remember_empty(frame)
    _answer(args, {"file": str(saved)}, f"the empty table saved as {saved}")
    return EXIT_OK


def run_vision_read(args: argparse.Namespace) -> int:
    from vision.calibration import Lens, calibrate
    from vision.layout import load_layout
    from vision.library import Library
    from vision.reading import read
    from vision.sources import ImageSource

    library = Library.load(args.library)
    with ImageSource(args.image) as source:
        image = source.read()
    empty = None
    if args.empty is not None:
        with ImageSource(args.empty) as source:
            empty = source.read()
        if empty.shape != image.shape:
            h, w = empty.shape[:2]
            raise UsageError(f"companion vision read: --empty: {args.empty} is {w}x{h}, the photo "
                             f"{image.shape[1]}x{image.shape[0]}: it must be the same view")
    calibration = None
    dictionary = None
    if args.layout is not None:
        layout = load_layout(args.layout)
        lens = Lens.load(args.lens) if args.lens is not None else None
        calibration = calibrate(image, layout, lens)
        dictionary = layout.dictionary
    result = read(image, library, calibration=calibration, layout_dictionary=dictionary,
                  empty=empty).to_json()
    lines = [f"{p['kind']:<14} {p['face']:<4} {p['front'] or '':<24} confidence {p['confidence']:.2f}"
             for p in result["pieces"]]
    lines += [f"unknown piece at {u.get('center_mm') or u.get('center_px')}" for u in result["unknown"]]
    _answer(args, result, "\n".join(lines) or "no pieces found")
    return EXIT_OK


def run_vision_markers(args: argparse.Namespace) -> int:
    from vision import register_square
    from vision.layout import load_layout
    from vision.markers import write_sheet

    if args.register_square:
        files = register_square.write(args.out, args.dpi)
        _answer(args, {"files": [str(f) for f in files]}, "\n".join(str(f) for f in files))
        return EXIT_OK

    files = write_sheet(load_layout(args.layout), args.out, args.dpi)
    _answer(args, {"files": [str(f) for f in files]}, "\n".join(str(f) for f in files))
    return EXIT_OK


def run_vision_calibrate_lens(args: argparse.Namespace) -> int:
    from vision.lens import calibrate_lens
    from vision.markers import write_lens_board
    from vision.sources import ImageSource

    if args.board is not None:
        files = write_lens_board(args.board)
        _answer(args, {"files": [str(f) for f in files]}, "\n".join(str(f) for f in files))
        return EXIT_OK
    if not args.images:
        raise InvalidInput("IMAGE", None,
                           "give 15-30 photos of the printed board (or --board FILE to print it)")
    if args.out is None:
        raise InvalidInput("--out", None, "say where to save the lens calibration")
    images = []
    for path in args.images:
        with ImageSource(path) as source:
            images.append(source.read())
    lens = calibrate_lens(images)
    lens.save(args.out)
    doc = {"rms_px": round(lens.rms_px, 4), "views": lens.views, "K": lens.K.tolist(),
           "dist": lens.dist.reshape(-1).tolist()}
    _answer(args, doc, f"lens calibrated from {lens.views} views: RMS {lens.rms_px:.3f} px; "
                       f"saved to {args.out}")
    return EXIT_OK
