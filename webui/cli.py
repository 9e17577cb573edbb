"""The `umpire` command line.

Every bad input ends in one line on stderr and exit status 2, never a traceback: argument
errors through `_Parser.error`, bad files and questions through the packages' `ValueError`
subclasses.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from calibration.errors import CalibrationError
from calibration.units import UnknownUnitError
from rules.engine import get_ruleset, load_scene, ruleset_ids
from rules.errors import UmpireError

from .words import plain_lines, ruleset_info

if TYPE_CHECKING:
    from calibration.fit import Board, CharucoSpec

EXIT_BAD_INPUT = 2


def _board() -> CharucoSpec:
    """The ChArUco board `umpire tags --charuco` prints and `umpire calibrate camera` looks for
    (it fits an A4 or letter page)."""
    from calibration.fit import PRINTED_BOARD

    return PRINTED_BOARD


class UsageError(UmpireError):
    """Options that do not go together, or a value of the wrong form."""


class _Parser(argparse.ArgumentParser):
    """argparse, but an error is one line naming the command and pointing at --help."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="umpire",
        description="A camera umpire for miniature wargames: measures the table and suggests "
        "how each rule resolves.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    resolve = commands.add_parser(
        "resolve",
        help="apply a scene's ruleset to one question",
        description="Apply the scene's ruleset to one question, e.g. "
        "'umpire resolve examples/skirmish.json measure rifles zouaves'.",
    )
    resolve.add_argument("scene", metavar="SCENE.json", help="an umpire-scene/1 file")
    resolve.add_argument(
        "action",
        metavar="ACTION",
        help="the question: measure A B (more per ruleset, see 'umpire rulesets')",
    )
    resolve.add_argument("args", metavar="ARGS", nargs="*", help="ids of units or bases")
    resolve.add_argument("--json", action="store_true", help="print JSON instead of sentences")
    resolve.set_defaults(run=_resolve)

    scan = commands.add_parser(
        "scan",
        help="build the scene from one photo of the table",
        description="Detect the tags in one photo, fit the table to the corner tags and print "
        "the scene (umpire-scene/1 with --json, with detection diagnostics under 'detection').",
    )
    scan.add_argument("image", metavar="IMAGE", help="a photo of the table (PNG, JPEG, ...)")
    scan.add_argument("--game", required=True, metavar="GAME.toml", help="the game file")
    scan.add_argument(
        "--camera",
        metavar="CAMERA.json",
        help="intrinsics from 'umpire calibrate camera' (else the game's [camera], if any)",
    )
    scan.add_argument("--json", action="store_true", help="print the scene JSON")
    scan.set_defaults(run=_scan)

    tags = commands.add_parser(
        "tags",
        help="print-ready tag sheets, or a rig plan",
        description="Write every tag of a game at its exact size (print at 100%%), with a "
        "ChArUco board for camera calibration; or, with --rig, say how high the camera must "
        "be and the smallest tag that reads.",
    )
    tags.add_argument("--game", metavar="GAME.toml", help="the game file")
    tags.add_argument("--out", metavar="FILE.pdf|FILE.svg", help="where to write the sheets")
    tags.add_argument("--page", choices=("A4", "letter"), default="A4", help="paper size")
    tags.add_argument(
        "--charuco",
        action="store_true",
        help="add a ChArUco board page for 'umpire calibrate camera' (7 x 5 squares of 25 mm, "
        "DICT_4X4_50 markers of 18 mm)",
    )
    tags.add_argument("--rig", action="store_true", help="print a rig plan instead of sheets")
    tags.add_argument("--table", metavar="WxD", help="table size in cm for --rig (else the game's)")
    tags.add_argument("--resolution", metavar="WxH", default="1920x1080", help="camera pixels")
    tags.add_argument("--fov", type=float, default=70.0, metavar="DEG", help="horizontal view")
    tags.add_argument("--tilt", type=float, default=0.0, metavar="DEG", help="camera tilt")
    tags.set_defaults(run=_tags)

    calibrate = commands.add_parser(
        "calibrate",
        help="calibrate the camera from photos of a printed calibration board",
        description="Fit the camera's intrinsics and lens distortion to several photos of a "
        "calibration board (by default the ChArUco board printed by 'umpire tags --charuco'; "
        "the flags describe another ChArUco board or a Kalibr aprilgrid as printed), with each "
        "parameter's uncertainty, and save them for 'umpire scan --camera'.",
    )
    calibrate.add_argument("what", choices=("camera",), help="what to calibrate")
    calibrate.add_argument("images", metavar="IMAGE", nargs="+", help="photos of the board")
    calibrate.add_argument("--out", required=True, metavar="CAMERA.json", help="where to save")
    calibrate.add_argument(
        "--board",
        choices=("charuco", "aprilgrid"),
        default="charuco",
        help="the board as printed: ChArUco (default) or a Kalibr aprilgrid",
    )
    calibrate.add_argument(
        "--squares",
        metavar="CxR",
        help="ChArUco squares across x down (default 7x5); aprilgrid: tags across x down "
        "(default 6x6)",
    )
    calibrate.add_argument(
        "--square-size",
        type=float,
        metavar="MM",
        help="ChArUco square side (default 25); aprilgrid: tag side (default 88)",
    )
    calibrate.add_argument(
        "--marker-size", type=float, metavar="MM", help="ChArUco marker side (default 18)"
    )
    calibrate.add_argument(
        "--dictionary",
        metavar="DICT",
        help="marker dictionary (default DICT_4X4_50; aprilgrid: DICT_APRILTAG_36h11, or tag36h11)",
    )
    calibrate.add_argument(
        "--legacy",
        action="store_true",
        help="ChArUco in OpenCV's layout before 4.6 (boards from older tools)",
    )
    calibrate.add_argument(
        "--spacing",
        type=float,
        default=0.3,
        metavar="RATIO",
        help="aprilgrid gap between tags over the tag size (Kalibr's tagSpacing, default 0.3)",
    )
    calibrate.set_defaults(run=_calibrate)

    serve = commands.add_parser(
        "serve",
        help="run the tracker and its web page (the built-in demo without --source)",
        description="Scan the table continuously and serve the table page and its JSON API. "
        "With no --source it plays the built-in demo: a synthetic camera over a skirmish-19c "
        "game (--demo RULESET for another sheet). A restart with the same data folder and game "
        "file resumes the last unfinished game; --new-game starts a fresh one.",
    )
    serve.add_argument(
        "--source",
        default="demo",
        metavar="demo|board|camera:N|FILE|DIR|URL",
        help="where frames come from (default: demo; board: a synthetic camera filming the "
        "calibration board, for the calibration page)",
    )
    serve.add_argument("--game", metavar="GAME.toml", help="the game file (not for the demo)")
    serve.add_argument(
        "--demo",
        metavar="RULESET",
        help="play the built-in demo of a ruleset (default skirmish-19c; see 'umpire rulesets')",
    )
    serve.add_argument(
        "--new-game",
        action="store_true",
        help="start a new game instead of resuming the last unfinished game of this game file "
        "(the last one is ended)",
    )
    serve.add_argument(
        "--camera",
        metavar="CAMERA.json",
        help="intrinsics from 'umpire calibrate camera' (else the game's [camera], if any)",
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1: this machine only); any other address, such "
        "as 0.0.0.0, lets others on the network watch, and changes then need the access code "
        "printed at start-up",
    )
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free)")
    serve.add_argument(
        "--fps",
        type=float,
        metavar="N",
        help="frames per second: the demo plays at N (default 10), a video file plays N of its "
        "frames a second (default: its own frame rate), a folder shows N photos a second "
        "(default 1); a camera or stream is scanned at most N times a second",
    )
    serve.add_argument(
        "--at-end",
        choices=("stop", "loop"),
        help="what a video file or a folder of photos does after its last frame: stop there, "
        "showing the last one (default), or loop from the first again",
    )
    serve.add_argument(
        "--step",
        action="store_true",
        help="a folder of photos shows each photo until 'Next photo' is pressed on the page "
        "(POST /api/source/next) instead of one every 1 / --fps seconds",
    )
    serve.add_argument(
        "--replay",
        metavar="GAME",
        type=int,
        help="replay game GAME of the game log (see 'umpire log') instead of a camera",
    )
    serve.add_argument(
        "--stale-seconds",
        type=float,
        metavar="S",
        help="how long a base hidden from the camera stays on the map at its last place, marked "
        "stale (default 20)",
    )
    serve.add_argument(
        "--verbose",
        action="store_true",
        help="log every request (an access log line each) and the server's notices; by default "
        "only errors are printed",
    )
    serve.add_argument(
        "--max-connections",
        type=int,
        default=2000,
        metavar="N",
        help="open connections the server holds at most (default 2000, lowered to fit the "
        "open-file limit); more are answered 503 and closed",
    )
    serve.add_argument(
        "--max-per-address",
        type=int,
        default=32,
        metavar="N",
        help="open connections one address may hold (default 32: a page needs 3 to 6)",
    )
    serve.set_defaults(run=_serve)

    from webui.benchcli import add_bench_parser
    from webui.logcli import add_log_parser

    add_log_parser(commands)
    add_bench_parser(commands)

    rulesets = commands.add_parser("rulesets", help="list the rulesets and their actions")
    rulesets.add_argument("--json", action="store_true", help="print JSON")
    rulesets.set_defaults(run=_rulesets)
    return parser


def _resolve(opts: argparse.Namespace) -> int:
    scene = load_scene(opts.scene)
    answer = get_ruleset(scene.ruleset).resolve(scene, opts.action, opts.args)
    if opts.json:
        print(json.dumps(answer.as_json(), indent=2))
    else:
        print("\n".join(plain_lines(answer.action, answer.data, answer.lines)))
    return 0


def _scan(opts: argparse.Namespace) -> int:
    from calibration.store import load_camera
    from vision.game import load_game
    from vision.pipeline import Scanner, read_image

    game = load_game(opts.game)
    camera = load_camera(opts.camera) if opts.camera else None
    image = read_image(opts.image)
    result = Scanner(game, camera).scan(image)
    doc = result.scene
    if opts.json:
        print(json.dumps(doc, indent=2))
        return 0
    det = doc["detection"]
    cal = det["calibration"]
    bases = sum(len(u["bases"]) for u in doc["units"])
    expected = sum(len(u.bases) for u in game.units)
    print(
        f"{opts.image}: {bases} of {expected} bases seen in {len(doc['units'])} units "
        f"({doc['ruleset']}), {len(doc['terrain'])} terrain pieces"
    )
    print(
        f"table fitted to corner tags {', '.join(map(str, cal['reference_tags']))}: residual "
        f"{cal['rms']:.2f} {cal['unit']} rms, worst {cal['worst']:.2f} {cal['unit']}; lens: "
        f"{cal['lens']}" + ("; raised tags corrected" if cal["height_corrected"] else "")
    )
    for key, what in (
        ("missing_bases", "not seen"),
        ("missing_terrain", "not seen"),
        ("unknown_tags", "unknown tags"),
        ("duplicate_tags", "duplicate tags"),
        ("off_table", "off the table"),
    ):
        if det.get(key):
            print(f"{what}: {json.dumps(det[key])}")
    for warning in det.get("warnings", []):
        print(f"warning: {warning}")
    return 0


def _size(text: str, what: str) -> tuple[float, float]:
    parts = text.lower().split("x")
    try:
        a, b = (float(p) for p in parts)
    except ValueError:
        raise UsageError(f"{what} must be two numbers like 1920x1080, got {text!r}") from None
    if not (a > 0 and b > 0):
        raise UsageError(f"{what} must be two positive numbers, got {text!r}")
    return a, b


def _tags(opts: argparse.Namespace) -> int:
    from vision.game import load_game
    from vision.printing import PrintTag, charuco_sheet, rig_plan, write_sheets

    game = load_game(opts.game) if opts.game else None
    if opts.rig:
        if opts.table:
            width_cm, depth_cm = _size(opts.table, "--table")
            table = (width_cm * 10, depth_cm * 10)
        elif game is not None:
            table = (game.table_width, game.table_depth)
        else:
            raise UsageError("--rig needs --table WxD (cm) or --game GAME.toml")
        width_px, height_px = _size(opts.resolution, "--resolution")
        plan = rig_plan(
            table[0], table[1], int(width_px), int(height_px), opts.fov, tilt_deg=opts.tilt
        )
        print("\n".join(plan.lines()))
        return 0
    if game is None or not opts.out:
        raise UsageError("tag sheets need --game GAME.toml and --out FILE.pdf or FILE.svg")
    from pathlib import Path

    from vision.game import game_tags

    out = Path(opts.out)
    if out.suffix.lower() not in (".pdf", ".svg"):
        raise UsageError(f"--out must end in .pdf or .svg, got {opts.out!r}")
    prints = []
    for tag in game_tags(game):
        who = tag.owner if tag.unit is None else f"{tag.unit} / {tag.owner}"
        prints.append(PrintTag(tag.family, tag.id, tag.border_bits, tag.size, who))
    board = _board()
    boards = (
        [
            charuco_sheet(
                board.squares_x, board.squares_y, board.square_mm, board.marker_mm, board.dictionary
            )
        ]
        if opts.charuco
        else []
    )
    written = write_sheets(out, prints, boards=boards, page=opts.page)
    print(
        f"{len(prints)} tags{' and a ChArUco board' if boards else ''} written to "
        f"{', '.join(str(p) for p in written)}: print at 100% (no fit-to-page) and check the "
        "100 mm ruler"
    )
    return 0


def _calibrate(opts: argparse.Namespace) -> int:
    from calibration.camera import CameraModel
    from calibration.fit import calibrate_camera
    from calibration.store import save_camera
    from vision.pipeline import read_image

    board = _board_as_printed(opts)
    views = [read_image(path) for path in opts.images]
    result = calibrate_camera(views, board)
    model: CameraModel = result.camera
    save_camera(opts.out, model)
    std = result.std_px
    print(
        f"camera calibrated from {len(result.views_used)} of {len(views)} photos of the "
        f"{board.describe()}: fx {model.fx:.1f} +- {std['fx']:.1f}, fy {model.fy:.1f} +- "
        f"{std['fy']:.1f}, centre ({model.cx:.1f} +- {std['cx']:.1f}, {model.cy:.1f} +- "
        f"{std['cy']:.1f}) px, k1 {model.distortion[0]:.3f} +- {std['k1']:.3f}, reprojection "
        f"error {result.rms_px:.3f} px; saved to {opts.out}"
    )
    for warning in result.warnings:
        print(f"warning: {warning}")
    return 0


def _board_as_printed(opts: argparse.Namespace) -> Board:
    """The calibration board the flags describe (defaults: the board `umpire tags --charuco`
    prints, or Kalibr's 6x6 aprilgrid of 88 mm tag36h11 tags)."""
    from calibration.fit import AprilGridSpec, CharucoSpec

    if opts.board == "aprilgrid":
        if opts.marker_size is not None or opts.legacy:
            raise UsageError(
                "--marker-size and --legacy are for ChArUco boards, not --board aprilgrid"
            )
        across, down = (6, 6) if opts.squares is None else _count_pair(opts.squares)
        dictionary = opts.dictionary or "DICT_APRILTAG_36h11"
        if dictionary.startswith("tag"):
            dictionary = "DICT_APRILTAG_" + dictionary[3:]
        return AprilGridSpec(
            across,
            down,
            88.0 if opts.square_size is None else opts.square_size,
            opts.spacing,
            dictionary,
        )
    default = _board()
    across, down = (
        (default.squares_x, default.squares_y)
        if opts.squares is None
        else _count_pair(opts.squares)
    )
    square = default.square_mm if opts.square_size is None else opts.square_size
    marker = opts.marker_size
    if marker is None:
        marker = default.marker_mm * square / default.square_mm
    return CharucoSpec(
        across, down, square, marker, opts.dictionary or default.dictionary, bool(opts.legacy)
    )


def _count_pair(text: str) -> tuple[int, int]:
    try:
        across, down = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--squares must be two whole numbers like 7x5, got {text!r}") from None
    return across, down


def _rulesets(opts: argparse.Namespace) -> int:
    infos = [ruleset_info(ident) for ident in ruleset_ids()]
    if opts.json:
        print(json.dumps(infos, indent=2))
    else:
        for info in infos:
            measure = "grid boxes" if info["grid"] else info["unit"]
            print(f"{info['id']:<22} {info['title']} ({measure}): {', '.join(info['actions'])}")
    return 0


def _serve(opts: argparse.Namespace) -> int:
    from webui import security
    from webui.api import end_logged_game, install_playing, open_playing
    from webui.app import create_app, default_data_dir
    from webui.gamelog import LOG_FILE, GameLog, install_log
    from webui.live import STALE_SECONDS, Live, open_live
    from webui.server import Limits, Server, listen

    if not 0 <= opts.port <= 65535:
        raise UsageError(f"--port must be 0 to 65535, got {opts.port}")
    if not 1 <= opts.max_connections <= 100_000:
        raise UsageError(f"--max-connections must be 1 to 100000, got {opts.max_connections}")
    if not 1 <= opts.max_per_address <= opts.max_connections:
        raise UsageError(
            f"--max-per-address must be 1 to --max-connections, got {opts.max_per_address}"
        )
    if opts.fps is not None and not 0 < opts.fps <= 240:
        raise UsageError(f"--fps must be above 0 and at most 240, got {opts.fps:g}")
    try:
        local_only = security.check_bind_host(opts.host)
    except security.HostError as error:
        raise UsageError(str(error)) from None
    # Beyond this machine, spectators may watch but a change needs the code printed below.
    code = None if local_only else security.new_access_code()
    stale = STALE_SECONDS if opts.stale_seconds is None else opts.stale_seconds
    if not 0 <= stale <= 3600:
        raise UsageError(f"--stale-seconds must be 0 to 3600, got {stale:g}")
    if opts.demo is not None and (opts.source != "demo" or opts.game):
        raise UsageError("--demo plays a built-in demo: leave out --source and --game")
    if opts.replay is not None:
        if (
            opts.source != "demo"
            or opts.game
            or opts.camera
            or opts.demo
            or opts.new_game
            or opts.at_end
            or opts.step
        ):
            raise UsageError(
                "--replay plays a logged game: leave out --source, --game, --camera, --demo, "
                "--new-game, --at-end and --step"
            )
        from webui.replay import open_replay

        source, game = open_replay(default_data_dir() / LOG_FILE, opts.replay, fps=opts.fps or 10.0)
        live = Live(source, game, stale_seconds=stale, tracker_process=True)
    else:
        live = open_live(
            opts.source,
            opts.game,
            opts.camera,
            fps=opts.fps,
            stale_seconds=stale,
            demo=opts.demo,
            at_end=opts.at_end,
            step=opts.step,
            tracker_process=True,
        )
    config = {"ACCESS_CODE": code, "ALLOWED_HOSTS": security.host_names(opts.host)}
    app = create_app(config, live=live)
    try:
        # Opened before serving: a foreign or damaged log file stops here with exit 2.
        # A replay logs nothing (its log may be on read-only media): what is played on it
        # is kept in memory and forgotten when it stops.
        if opts.replay is not None:
            log = GameLog.memory()
        else:
            log = GameLog(Path(app.config["DATA_DIR"]) / LOG_FILE)
        install_log(app, log)
        key = None if opts.replay is not None else ""  # a replay is always a game of its own
        game_in_play = open_playing(log, live, new=opts.new_game, key=key)
        install_playing(app, game_in_play)
        limits = Limits(max_connections=opts.max_connections, max_per_address=opts.max_per_address)
        server = Server(app, listen(opts.host, opts.port), limits=limits, verbose=opts.verbose)
    except OSError as error:
        live.stop()
        raise UsageError(f"cannot listen on {opts.host}:{opts.port} ({error.strerror})") from None
    except UmpireError:
        live.stop()
        raise
    url = security.page_url(opts.host, server.port)
    app.config["PUBLIC_URL"] = url

    def stop_on_terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # `kill` stops the server as cleanly as Ctrl-C does

    signal.signal(signal.SIGTERM, stop_on_terminate)
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:  # started in the background
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:  # from here on, a stop always stops the tracker and closes the game log
        live.start()
        bound = "" if url.startswith(f"http://{opts.host}:") else f", listening on {opts.host}"
        print(
            f"umpire: serving {live.source.description} on {url} (Ctrl-C stops{bound})",
            flush=True,
        )
        play = game_in_play.play
        turn = f"turn {play.turn}" + (f", {play.phase}" if play.phase else "")
        if game_in_play.resumed:
            print(
                f"umpire: resuming game {game_in_play.game_id} at {turn} (--new-game starts "
                "a fresh one)",
                flush=True,
            )
        else:
            print(f"umpire: game {game_in_play.game_id} starts at {turn}", flush=True)
        if opts.replay is not None:
            print(
                "umpire: a replay logs nothing: its game log is only read, and what is played "
                "on it is forgotten when it stops",
                flush=True,
            )
        if code is not None:
            _print_access_code(code, security.join_url_for(url, code))
        # Returns on Ctrl-C or SIGTERM (uvicorn ends every stream, then raises the signal again).
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        # A second Ctrl-C or `kill` while stopping must not cut the game log's last write.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("umpire: stopping", flush=True)
        live.stop()
        server.stop()
        end_logged_game(app)
    return 0


def _print_access_code(code: str, join_url: str) -> None:
    """The code players need to change the game, and (on a terminal) a QR code of the page's
    address with the code, for their phones."""
    print(
        f"umpire: access code for changes: {code} (spectators without it can only watch; "
        f"players can open {join_url})",
        flush=True,
    )
    if sys.stdout.isatty():
        import segno

        # A terminal that cannot draw blocks skips it: the address above does the same job.
        with contextlib.suppress(UnicodeEncodeError):
            segno.make(join_url, error="m").terminal(out=sys.stdout, compact=True)
        sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    # Text no encoding can write (a lone surrogate from a command-line argument) is printed
    # escaped rather than ending the command with a traceback.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    parser = build_parser()
    opts = parser.parse_args(argv)
    try:
        return int(opts.run(opts))
    except (UmpireError, CalibrationError, UnknownUnitError) as exc:
        print(f"umpire {opts.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader (`| head`) left early: not an error of ours, and nothing left to say.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
