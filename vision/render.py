"""Synthetic photographs of a wargames table, with the ground truth of every tag.

Used by the demo source, the tests and the benchmarks: a felt mat, terrain cards, bases carrying
tags printed at their true size, seen by an oblique pinhole camera with OpenCV's lens distortion,
plus what real cameras add (blur, noise, uneven light, JPEG, motion blur, rolling shutter, grey
print, bent cards, glare, a hand over the table). The specs are plain frozen values so that the
renderer does not depend on the game-file module.

How a frame is made, and why it is fast enough for 1080p video:
1. the flat table (mat + terrain) is painted once in table space, a texture at a few px per mm,
   and cached;
2. each frame copies it and composites the flat tags (and their bases) into it with small affine
   warps of a cached, pre-filtered sprite;
3. ONE `cv2.remap` takes every image pixel to its point on the table: the map is built once per
   camera by undistorting every pixel (OpenCV's k1 k2 p1 p2 k3 model) and intersecting its ray
   with the table plane;
4. tags raised above the table (on a base, or a bent card) are remapped separately, each from its
   own small image window, through the same undistorted rays intersected with their own height;
5. a hand (a skin-coloured polygon above the table) and the image-space effects come last.

Table frame (docs/formats.md): origin at the near-left corner, x right, y away from the near edge,
z up, millimetres. Image pixels: OpenCV's convention, the centre of the top-left pixel is (0, 0).

Never imports pupil_apriltags (only vision/detect.py does).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from rules.errors import UmpireError
from vision.tags import cells_across, check_border_bits, tag_bitmap

BGR = tuple[int, int, int]
Point = tuple[float, float]

FLOOR_COLOUR: BGR = (48, 52, 58)  # what the camera sees beyond the table's edge
SKIN_COLOUR: BGR = (120, 150, 205)
MAX_TEXELS = 16_000_000  # cap of the table texture (about 48 MB in BGR)
CHEQUER_DARK = 40.0
CHEQUER_LIGHT = 185.0
"""Grey levels of a chequered mat's dark and light squares (felt texture added)."""


class RenderError(UmpireError):
    """A scene or camera the renderer cannot draw (bad size, bad field of view, ...)."""


def _positive(value: float, name: str) -> None:
    if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
        raise RenderError(f"{name} must be a positive number of millimetres, not {value!r}")


# --------------------------------------------------------------------------- specs


@dataclass(frozen=True, slots=True)
class BaseSpec:
    """The base a tag is glued on: a rectangle (`width_mm` across, `depth_mm` along the facing)
    or a circle (`diameter_mm`), centred on the tag, drawn under it in `colour` (BGR)."""

    width_mm: float | None = None
    depth_mm: float | None = None
    diameter_mm: float | None = None
    colour: BGR = (70, 80, 90)

    def __post_init__(self) -> None:
        if self.diameter_mm is not None:
            if self.width_mm is not None or self.depth_mm is not None:
                raise RenderError("a base is round (diameter_mm) or square (width_mm, depth_mm)")
            _positive(self.diameter_mm, "base diameter_mm")
        else:
            if self.width_mm is None or self.depth_mm is None:
                raise RenderError("a base needs diameter_mm, or both width_mm and depth_mm")
            _positive(self.width_mm, "base width_mm")
            _positive(self.depth_mm, "base depth_mm")

    @property
    def extent_mm(self) -> Point:
        """Its size across and along the facing."""
        if self.diameter_mm is not None:
            return (self.diameter_mm, self.diameter_mm)
        assert self.width_mm is not None and self.depth_mm is not None
        return (self.width_mm, self.depth_mm)


@dataclass(frozen=True, slots=True)
class TagSpec:
    """One printed tag lying on the table (or on a base `height_mm` above it)."""

    family: str
    """`tag36h11`, `tag25h9`, `tag16h5` or an OpenCV ArUco dictionary name."""
    tag_id: int
    x_mm: float
    """Centre of the tag on the table."""
    y_mm: float
    rotation_deg: float = 90.0
    """The way the tag's top edge points, counter-clockwise from +x: the contract's facing.
    90 shows the tag upright to a player at the near edge."""
    size_mm: float = 20.0
    """Edge of the black border square (quiet zone excluded)."""
    height_mm: float = 0.0
    """Height of the printed surface above the table (a base's thickness)."""
    border_bits: int = 1
    base: BaseSpec | None = None
    quiet_cells: float = 1.0
    """Width of the white margin printed around the black border, in cells."""

    def __post_init__(self) -> None:
        _positive(self.size_mm, f"size_mm of tag {self.tag_id}")
        check_border_bits(self.border_bits)
        if self.height_mm < 0 or self.quiet_cells < 0:
            raise RenderError(
                f"tag {self.tag_id}: height_mm and quiet_cells must not be negative, "
                f"not {self.height_mm!r} and {self.quiet_cells!r}"
            )
        tag_bitmap(self.family, self.tag_id, self.border_bits)  # rejects unknown family or id

    @property
    def card_mm(self) -> float:
        """Edge of the printed card: the black square and its white quiet zone."""
        cells = cells_across(self.family, self.border_bits)
        return self.size_mm * (1 + 2 * self.quiet_cells / cells)


@dataclass(frozen=True, slots=True)
class TerrainSpec:
    """A flat terrain card: a polygon in table millimetres, painted in `colour` (BGR)."""

    polygon_mm: tuple[Point, ...]
    colour: BGR


@dataclass(frozen=True, slots=True)
class TableSpec:
    """The playing surface and everything on it."""

    width_mm: float
    depth_mm: float
    terrain: tuple[TerrainSpec, ...] = ()
    tags: tuple[TagSpec, ...] = ()
    mat_colour: BGR = (58, 112, 72)
    """Mean colour of the felt (BGR): green by default."""
    mat_seed: int = 0
    """Seeds the felt's texture, so a table looks the same in every frame."""
    mat_squares_mm: float = 0.0
    """Above 0: a chequered mat of dark and light squares this wide (a chessboard-like grid
    mat, the worst ground for a detector that looks at every dark square); 0: plain felt."""

    def __post_init__(self) -> None:
        _positive(self.width_mm, "table width_mm")
        _positive(self.depth_mm, "table depth_mm")
        if self.mat_squares_mm != 0:
            _positive(self.mat_squares_mm, "mat_squares_mm")


@dataclass(frozen=True, slots=True)
class CameraSpec:
    """A camera looking at the table.

    It stands `height_mm` above the table plane and its optical axis passes through `target_mm`
    (the table centre by default). `tilt_deg` is the angle between the optical axis and the
    vertical: the camera stands back towards the near edge by `height_mm * tan(tilt)`. `yaw_deg`
    turns the camera (and where it stands) counter-clockwise about the vertical through the
    target; at yaw 0 the image's right is +x and the image's top is the far edge.
    Give exactly one of `fov_deg` (horizontal field of view) or `focal_px`.
    """

    width_px: int
    height_px: int
    height_mm: float
    tilt_deg: float = 0.0
    yaw_deg: float = 0.0
    fov_deg: float | None = None
    focal_px: float | None = None
    distortion: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0)
    """OpenCV's order: k1, k2, p1, p2, k3."""
    target_mm: Point | None = None
    roll_deg: float = 0.0
    """Turns the camera about its own optical axis (the picture turns the other way): a
    calibration board seen tilted about any direction of the picture, not only up and down."""

    def __post_init__(self) -> None:
        if self.width_px < 8 or self.height_px < 8:
            raise RenderError(f"image size {self.width_px}x{self.height_px} is too small")
        _positive(self.height_mm, "camera height_mm")
        if not 0 <= self.tilt_deg < 80:
            raise RenderError(f"camera tilt_deg must be 0 to 80 degrees, not {self.tilt_deg!r}")
        if (self.fov_deg is None) == (self.focal_px is None):
            raise RenderError("give the camera exactly one of fov_deg or focal_px")
        if self.fov_deg is not None and not 1 <= self.fov_deg < 170:
            raise RenderError(f"camera fov_deg must be 1 to 170 degrees, not {self.fov_deg!r}")
        if self.focal_px is not None:
            _positive(self.focal_px, "camera focal_px")
        if len(self.distortion) != 5:
            raise RenderError("camera distortion must be 5 numbers: k1, k2, p1, p2, k3")

    @property
    def focal(self) -> float:
        if self.focal_px is not None:
            return float(self.focal_px)
        assert self.fov_deg is not None
        return self.width_px / 2 / math.tan(math.radians(self.fov_deg) / 2)

    def matrix(self) -> np.ndarray:
        """The intrinsic matrix, principal point at the image centre."""
        f = self.focal
        return np.array(
            [[f, 0, (self.width_px - 1) / 2], [0, f, (self.height_px - 1) / 2], [0, 0, 1]]
        )


@dataclass(frozen=True, slots=True)
class Glare:
    """A bright reflection: centre and radius as fractions of the image width / height."""

    x: float = 0.5
    y: float = 0.4
    radius: float = 0.12
    strength: float = 0.6
    """How far towards white the centre is pushed (0 to 1)."""


@dataclass(frozen=True, slots=True)
class Effects:
    """What a real camera and a real table add. All off by default (a clean frame)."""

    blur_px: float = 0.0
    """Gaussian sigma of the lens blur, pixels."""
    noise_sigma: float = 0.0
    """Sensor noise, grey levels (of 255)."""
    light_gradient: float = 0.0
    """Fraction of light lost across the image (0.3: the dim side is 30% darker)."""
    light_angle_deg: float = 0.0
    """Direction in the image in which the light falls off (0: towards the right)."""
    jpeg_quality: int | None = None
    motion_blur_px: float = 0.0
    """Length of the motion streak, pixels."""
    motion_angle_deg: float = 0.0
    rolling_shutter_px: float = 0.0
    """Horizontal shift of the bottom row against the top row (a camera panning while read)."""
    print_contrast: tuple[int, int] = (0, 255)
    """Grey levels the printer reached for black and for white."""
    card_bend_mm: float = 0.0
    """How far the left and right edges of every tag card curl up above its centre line."""
    glare: Glare | None = None
    hand: tuple[Point, ...] | None = None
    """A hand and forearm, a polygon in table mm, seen `hand_height_mm` above the table."""
    hand_height_mm: float = 80.0

    def __post_init__(self) -> None:
        black, white = self.print_contrast
        if not 0 <= black < white <= 255:
            raise RenderError(
                f"print_contrast must be (black, white) with 0 <= black < white "
                f"<= 255, not {self.print_contrast!r}"
            )
        if self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100:
            raise RenderError(f"jpeg_quality must be 1 to 100, not {self.jpeg_quality!r}")
        if self.hand is not None and len(self.hand) < 3:
            raise RenderError("the hand polygon needs at least 3 points")


# --------------------------------------------------------------------------- truth


@dataclass(frozen=True, slots=True)
class TagTruth:
    """Where one tag really is, on the table and in the image."""

    family: str
    tag_id: int
    centre_mm: Point
    rotation_deg: float
    """The contract's facing: where the tag's top edge points, CCW from +x, in [0, 360)."""
    size_mm: float
    height_mm: float
    corners_px: np.ndarray | None
    """4x2 image corners in OpenCV's order (top-left, top-right, bottom-right, bottom-left of
    the marker picture), after lens distortion; None when a corner is out of the frame."""
    occluded: bool
    """Part of the black square is hidden by the hand."""
    hand_fraction: float
    """Share of the black square's image area under the hand (0 to 1)."""

    @property
    def visible(self) -> bool:
        """In the frame and not under the hand: a detector should find it."""
        return self.corners_px is not None and not self.occluded


@dataclass(frozen=True, slots=True)
class CameraTruth:
    """The camera as it really is: intrinsics, distortion and pose (table -> camera)."""

    matrix: np.ndarray
    distortion: np.ndarray
    """k1, k2, p1, p2, k3."""
    rvec: np.ndarray
    """Rodrigues vector of the rotation from the table frame to the camera frame."""
    tvec: np.ndarray
    """Translation of that transform, mm: x_cam = R @ x_table + tvec."""
    position_mm: np.ndarray
    """Where the camera's centre is in the table frame."""


@dataclass(frozen=True, slots=True)
class FrameTruth:
    tags: tuple[TagTruth, ...]
    camera: CameraTruth
    hand_px: np.ndarray | None = None
    """The hand's outline in the image (Nx2), None when there is no hand."""


@dataclass(frozen=True, slots=True)
class Frame:
    image: np.ndarray
    """HxWx3 uint8, BGR."""
    truth: FrameTruth


# --------------------------------------------------------------------------- camera geometry


@dataclass(frozen=True, slots=True)
class _Rays:
    """A camera's pose and, for every pixel, the undistorted ray it sees."""

    matrix: np.ndarray
    distortion: np.ndarray
    rotation: np.ndarray  # table -> camera
    centre: np.ndarray  # camera centre in the table frame
    xn: np.ndarray  # HxW undistorted normalised image coordinates
    yn: np.ndarray
    valid: np.ndarray  # HxW bool: the distortion model is invertible there
    xn_range: tuple[float, float]
    yn_range: tuple[float, float]

    @property
    def tvec(self) -> np.ndarray:
        return -self.rotation @ self.centre

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Image positions (Nx2) of table-frame points (Nx3), and whether each is in view."""
        points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        cam = points @ self.rotation.T + self.tvec
        in_front = cam[:, 2] > 1e-6
        z = np.where(in_front, cam[:, 2], 1.0)
        xn, yn = cam[:, 0] / z, cam[:, 1] / z
        # Beyond the image's own rays the distortion polynomial can fold far points back in.
        inside = (
            in_front
            & (xn >= self.xn_range[0])
            & (xn <= self.xn_range[1])
            & (yn >= self.yn_range[0])
            & (yn <= self.yn_range[1])
        )
        rvec, _ = cv2.Rodrigues(self.rotation)
        px, _ = cv2.projectPoints(points, rvec, self.tvec, self.matrix, self.distortion)
        return px.reshape(-1, 2), inside

    def on_plane(
        self, xn: np.ndarray, yn: np.ndarray, z_mm: float | np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Table x, y where the rays through (xn, yn) meet the plane z = z_mm, and where they
        meet it in front of the camera."""
        r = self.rotation
        dx = r[0, 0] * xn + r[1, 0] * yn + r[2, 0]
        dy = r[0, 1] * xn + r[1, 1] * yn + r[2, 1]
        dz = r[0, 2] * xn + r[1, 2] * yn + r[2, 2]
        hits = dz < -1e-9
        s = (z_mm - self.centre[2]) / np.where(hits, dz, -1.0)
        return self.centre[0] + s * dx, self.centre[1] + s * dy, hits & (s > 0)


def _camera_pose(camera: CameraSpec, target: Point) -> tuple[np.ndarray, np.ndarray]:
    """Rotation table -> camera and the camera centre, for a camera aimed at `target`."""
    tilt, yaw = math.radians(camera.tilt_deg), math.radians(camera.yaw_deg)
    # At yaw 0: image right = +x, optical axis tilted from straight down towards +y.
    x_axis = np.array([1.0, 0.0, 0.0])
    y_axis = np.array([0.0, -math.cos(tilt), -math.sin(tilt)])
    z_axis = np.array([0.0, math.sin(tilt), -math.cos(tilt)])
    back = np.array([0.0, -camera.height_mm * math.tan(tilt), camera.height_mm])
    turn = np.array(
        [[math.cos(yaw), -math.sin(yaw), 0.0], [math.sin(yaw), math.cos(yaw), 0.0], [0, 0, 1.0]]
    )
    if camera.roll_deg:
        roll = math.radians(camera.roll_deg)
        x_axis, y_axis = (
            math.cos(roll) * x_axis + math.sin(roll) * y_axis,
            -math.sin(roll) * x_axis + math.cos(roll) * y_axis,
        )
    rotation = np.stack([turn @ x_axis, turn @ y_axis, turn @ z_axis])
    centre = np.array([target[0], target[1], 0.0]) + turn @ back
    return rotation, centre


@lru_cache(maxsize=4)
def _rays(camera: CameraSpec, target: Point) -> _Rays:
    """Undistort every pixel once per camera (the costly part, about 0.5 s at 1080p)."""
    matrix = camera.matrix()
    distortion = np.array(camera.distortion, dtype=np.float64)
    w, h = camera.width_px, camera.height_px
    u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    if np.any(distortion != 0):
        pixels = np.stack([u, v], axis=-1).reshape(-1, 1, 2)
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-12)
        norm = cv2.undistortPoints(pixels, matrix, distortion, None, None, None, criteria)
        norm = norm.reshape(-1, 2)
        back, _ = cv2.projectPoints(
            np.c_[norm, np.ones(len(norm))], np.zeros(3), np.zeros(3), matrix, distortion
        )
        error = np.hypot(*(back.reshape(-1, 2) - pixels.reshape(-1, 2)).T)
        valid = (error < 0.01).reshape(h, w)
        xn, yn = norm[:, 0].reshape(h, w), norm[:, 1].reshape(h, w)
    else:
        xn, yn = (u - matrix[0, 2]) / matrix[0, 0], (v - matrix[1, 2]) / matrix[1, 1]
        valid = np.ones((h, w), dtype=bool)
    rotation, centre = _camera_pose(camera, target)
    return _Rays(
        matrix=matrix,
        distortion=distortion,
        rotation=rotation,
        centre=centre,
        xn=xn.astype(np.float32),
        yn=yn.astype(np.float32),
        valid=valid,
        xn_range=(float(xn[valid].min()), float(xn[valid].max())),
        yn_range=(float(yn[valid].min()), float(yn[valid].max())),
    )


@lru_cache(maxsize=4)
def _table_map(
    camera: CameraSpec, target: Point, px_per_mm: float
) -> tuple[np.ndarray, np.ndarray]:
    """For every image pixel, the table-texture texel it sees (fixed-point maps for remap)."""
    rays = _rays(camera, target)
    x, y, hits = rays.on_plane(rays.xn.astype(np.float64), rays.yn.astype(np.float64), 0.0)
    keep = hits & rays.valid
    map_x = np.where(keep, x * px_per_mm - 0.5, -1e4).astype(np.float32)
    map_y = np.where(keep, y * px_per_mm - 0.5, -1e4).astype(np.float32)
    fixed, fraction = cv2.convertMaps(map_x, map_y, cv2.CV_16SC2)
    return fixed, fraction


def plane_maps(
    camera: CameraSpec, target: Point, px_per_mm: float
) -> tuple[np.ndarray, np.ndarray]:
    """For every pixel of `camera` aimed at `target`, where on a picture of the plane z = 0
    (point (x, y) mm at picture pixel (x, y) * px_per_mm - 0.5) it looks: fixed-point maps for
    `cv2.remap`, through the camera's lens. The table's projection, for any flat picture (the
    synthetic calibration board camera of `vision.boardcam` films a board with it)."""
    return _table_map(camera, target, float(px_per_mm))


def _texture_scale(camera: CameraSpec, table: TableSpec, target: Point) -> float:
    """Texels per mm: about twice the finest image sampling of the table, so the one remap
    never magnifies the texture; capped to keep the texture in memory."""
    rays = _rays(camera, target)
    step = 8
    xs, ys, hits = rays.on_plane(
        rays.xn[::step, ::step].astype(np.float64), rays.yn[::step, ::step].astype(np.float64), 0
    )
    on_table = hits & (xs >= 0) & (xs <= table.width_mm) & (ys >= 0) & (ys <= table.depth_mm)
    on_table = on_table[:-1, :-1]
    span = np.hypot(np.diff(xs, axis=1)[:-1, :], np.diff(ys, axis=1)[:-1, :]) / step
    finest = float(span[on_table].min()) if on_table.any() else 1.0  # mm per pixel
    scale = min(max(2.0 / max(finest, 1e-6), 1.0), 12.0)
    cap = math.sqrt(MAX_TEXELS / (table.width_mm * table.depth_mm))
    return round(min(scale, cap), 3)


# --------------------------------------------------------------------------- the table texture


@lru_cache(maxsize=2)
def _table_texture(
    width_mm: float,
    depth_mm: float,
    terrain: tuple[TerrainSpec, ...],
    mat_colour: BGR,
    mat_seed: int,
    px_per_mm: float,
    mat_squares_mm: float = 0.0,
) -> np.ndarray:
    """The felt (chequered when `mat_squares_mm` > 0) and the terrain cards in table space
    (row j at y = (j + 0.5) / px_per_mm)."""
    w = math.ceil(width_mm * px_per_mm)
    h = math.ceil(depth_mm * px_per_mm)
    rng = np.random.default_rng(mat_seed)
    # Felt: blotches a few cm across, fibres at a fraction of a mm.
    coarse = rng.normal(0.0, 1.0, (max(2, h // 60 + 2), max(2, w // 60 + 2), 3))
    blotches = cv2.resize(coarse.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    fibres = cv2.GaussianBlur(rng.normal(0.0, 1.0, (h, w)).astype(np.float32), (0, 0), 0.6)
    mat = np.asarray(mat_colour, np.float32) + 9.0 * blotches + 7.0 * fibres[..., None]
    if mat_squares_mm > 0:
        rows = (np.floor((np.arange(h) + 0.5) / px_per_mm / mat_squares_mm) % 2).astype(np.uint8)
        cols = (np.floor((np.arange(w) + 0.5) / px_per_mm / mat_squares_mm) % 2).astype(np.uint8)
        dark = rows[:, None] ^ cols[None, :]
        shade = np.where(dark > 0, np.float32(CHEQUER_DARK), np.float32(CHEQUER_LIGHT))
        mat += shade[..., None] - np.asarray(mat_colour, np.float32)
    # Brownish wear so the felt is not one flat green.
    mat[..., 2] += 6.0 * blotches[..., 0]
    texture = np.clip(mat, 0, 255).astype(np.uint8)
    grain = np.clip(fibres * 6.0, -20, 20)
    for card in terrain:
        polygon = np.asarray(card.polygon_mm, np.float64) * px_per_mm - 0.5
        x0, y0 = np.maximum(np.floor(polygon.min(axis=0)).astype(int) - 2, 0)
        x1, y1 = np.minimum(np.ceil(polygon.max(axis=0)).astype(int) + 3, (w, h))
        if x1 <= x0 or y1 <= y0:
            continue
        pts = np.round((polygon - (x0, y0)) * 16).astype(np.int32)
        window = texture[y0:y1, x0:x1]
        mask = np.zeros(window.shape[:2], np.uint8)
        cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, shift=4)
        painted = np.asarray(card.colour, np.float32) + grain[y0:y1, x0:x1, None]
        alpha = mask.astype(np.float32)[..., None] / 255.0
        window[:] = np.clip(window * (1 - alpha) + painted * alpha, 0, 255).astype(np.uint8)
        edge = tuple(int(c * 0.6) for c in card.colour)
        cv2.polylines(window, [pts], True, edge, 1, cv2.LINE_AA, shift=4)
    texture.setflags(write=False)
    return texture


# --------------------------------------------------------------------------- sprites


@dataclass(frozen=True, slots=True)
class _Sprite:
    """A tag card (and the top of its base) in its own frame, premultiplied BGRA float32.

    Pixel (col, row) is at local (u, v) mm with col = col0 + u * px_per_mm and
    row = row0 - v * px_per_mm; +u is the tag's right, +v the way its top edge points."""

    pixels: np.ndarray
    px_per_mm: float
    col0: float
    row0: float
    half_extent_mm: Point


def _half_extent(tag: TagSpec) -> Point:
    """Half the size of what is drawn for a tag (card or base, the larger) across and along."""
    base_w, base_d = tag.base.extent_mm if tag.base is not None else (0.0, 0.0)
    return (max(tag.card_mm, base_w) / 2, max(tag.card_mm, base_d) / 2)


def _tag_key(tag: TagSpec) -> tuple[object, ...]:
    return (tag.family, tag.tag_id, tag.border_bits, tag.size_mm, tag.quiet_cells, tag.base)


@lru_cache(maxsize=1024)
def _sprite(
    key: tuple[object, ...], contrast: tuple[int, int], min_px_per_mm: float, blur_px: float
) -> _Sprite:
    family, tag_id, border_bits, size_mm, quiet_cells, base = key
    assert isinstance(family, str) and isinstance(tag_id, int) and isinstance(border_bits, int)
    assert isinstance(size_mm, float | int) and isinstance(quiet_cells, float | int)
    assert base is None or isinstance(base, BaseSpec)
    bitmap = tag_bitmap(family, tag_id, border_bits)
    cells = bitmap.shape[0]
    # A whole number of sprite pixels per cell, so the tag's edges are exact in the sprite.
    per_cell = max(2, math.ceil(min_px_per_mm * size_mm / cells))
    scale = per_cell * cells / size_mm
    card = size_mm * (1 + 2 * quiet_cells / cells)
    base_w, base_d = base.extent_mm if base is not None else (0.0, 0.0)
    half = (max(card, base_w) / 2, max(card, base_d) / 2)
    margin = per_cell  # room for the anti-aliasing blur
    tag_px = per_cell * cells
    # Sizes chosen so the tag lands on whole pixels: its left edge at `margin + pad` pixels.
    pad_x = math.ceil(half[0] * scale - tag_px / 2)
    pad_y = math.ceil(half[1] * scale - tag_px / 2)
    width = tag_px + 2 * (pad_x + margin)
    height = tag_px + 2 * (pad_y + margin)
    col0, row0 = (width - 1) / 2, (height - 1) / 2
    black, white = contrast
    colour = np.zeros((height, width, 3), np.float32)
    alpha = np.zeros((height, width), np.float32)

    def fill(polygon: np.ndarray, bgr: tuple[float, ...]) -> None:
        mask = np.zeros((height, width), np.uint8)
        pts = np.round(polygon * 16).astype(np.int32)
        cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, shift=4)
        a = mask.astype(np.float32) / 255
        colour[:] = colour * (1 - a[..., None]) + np.asarray(bgr, np.float32) * a[..., None]
        alpha[:] = alpha * (1 - a) + a

    def square(half_u: float, half_v: float) -> np.ndarray:
        return np.array(
            [
                [col0 + su * half_u * scale, row0 - sv * half_v * scale]
                for su, sv in ((-1, 1), (1, 1), (1, -1), (-1, -1))
            ]
        )

    if base is not None:
        if base.diameter_mm is not None:
            angles = np.linspace(0, 2 * math.pi, 96, endpoint=False)
            r = base.diameter_mm / 2 * scale
            fill(np.c_[col0 + r * np.cos(angles), row0 + r * np.sin(angles)], base.colour)
        else:
            fill(square(base_w / 2, base_d / 2), base.colour)
    fill(square(card / 2, card / 2), (white, white, white))
    cells_px = np.repeat(np.repeat(bitmap, per_cell, axis=0), per_cell, axis=1)
    grey = black + (white - black) * (cells_px.astype(np.float32) / 255)
    top = (height - tag_px) // 2
    left = (width - tag_px) // 2
    colour[top : top + tag_px, left : left + tag_px] = grey[..., None]
    alpha[top : top + tag_px, left : left + tag_px] = 1.0
    pixels = np.dstack([colour * alpha[..., None], alpha])
    if blur_px > 0:
        # Pre-filter to the resolution it will be sampled at: a pixel averages an area.
        pixels = cv2.GaussianBlur(pixels, (0, 0), blur_px)
    pixels.setflags(write=False)
    return _Sprite(pixels, scale, col0, row0, half)


def _prefiltered_sprite(
    tag: TagSpec, contrast: tuple[int, int], target_px_per_mm: float
) -> _Sprite:
    """The tag's sprite, blurred to be sampled at `target_px_per_mm` without aliasing."""
    fine = max(4.0 * target_px_per_mm, 2.0)
    raw = _sprite(_tag_key(tag), contrast, round(fine, 2), 0.0)
    sigma = 0.3 * raw.px_per_mm / target_px_per_mm
    return _sprite(_tag_key(tag), contrast, round(fine, 2), round(sigma, 2))


def _tag_axes(tag: TagSpec) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors of the tag's right (+u) and of the way its top edge points (+v)."""
    a = math.radians(tag.rotation_deg)
    return np.array([math.sin(a), -math.cos(a)]), np.array([math.cos(a), math.sin(a)])


def _composite(dst: np.ndarray, premultiplied: np.ndarray) -> None:
    """Paint a premultiplied BGRA layer over a uint8 BGR image in place."""
    a = premultiplied[..., 3:4]
    out = dst.astype(np.float32) * (1 - a) + premultiplied[..., :3]
    dst[:] = np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _paint_flat_tag(texture: np.ndarray, tag: TagSpec, sprite: _Sprite, ppm: float) -> None:
    """Warp a flat tag's sprite into the table texture (only over its own small window)."""
    right, up = _tag_axes(tag)
    reach = math.hypot(*sprite.half_extent_mm) + 2 / ppm
    x0 = max(0, math.floor((tag.x_mm - reach) * ppm))
    y0 = max(0, math.floor((tag.y_mm - reach) * ppm))
    x1 = min(texture.shape[1], math.ceil((tag.x_mm + reach) * ppm) + 1)
    y1 = min(texture.shape[0], math.ceil((tag.y_mm + reach) * ppm) + 1)
    if x1 <= x0 or y1 <= y0:
        return
    # Window texel (i, j) -> table mm -> local (u, v) -> sprite pixel: one affine map.
    s = sprite.px_per_mm
    to_mm = np.array(
        [
            [1 / ppm, 0, (x0 + 0.5) / ppm - tag.x_mm],
            [0, 1 / ppm, (y0 + 0.5) / ppm - tag.y_mm],
            [0, 0, 1],
        ]
    )
    to_local = np.array([[right[0], right[1], 0], [up[0], up[1], 0], [0, 0, 1]])
    to_sprite = np.array([[s, 0, sprite.col0], [0, -s, sprite.row0], [0, 0, 1]])
    affine = (to_sprite @ to_local @ to_mm)[:2]
    layer = cv2.warpAffine(
        sprite.pixels,
        affine,
        (x1 - x0, y1 - y0),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT,
    )
    _composite(texture[y0:y1, x0:x1], layer)


# --------------------------------------------------------------------------- raised tags


def _card_lift(tag: TagSpec, u: np.ndarray, bend_mm: float) -> np.ndarray:
    """Height above the tag's printed surface of the card at local u: its left and right edges
    curl up by `bend_mm` (a parabola across the card)."""
    if bend_mm == 0:
        return np.zeros_like(u)
    return bend_mm * (2 * np.clip(u, -tag.card_mm / 2, tag.card_mm / 2) / tag.card_mm) ** 2


def _corners_3d(tag: TagSpec, bend_mm: float) -> np.ndarray:
    """The black square's corners in the table frame, OpenCV's order."""
    right, up = _tag_axes(tag)
    h = tag.size_mm / 2
    local = np.array([(-h, h), (h, h), (h, -h), (-h, -h)])
    xy = np.array([tag.x_mm, tag.y_mm]) + local[:, :1] * right + local[:, 1:] * up
    z = tag.height_mm + _card_lift(tag, local[:, 0], bend_mm)
    return np.c_[xy, z]


def _paint_raised_tag(
    image: np.ndarray, rays: _Rays, tag: TagSpec, contrast: tuple[int, int], bend_mm: float
) -> None:
    """Draw a tag above the table (its base's side, then its top) straight into the image."""
    right, up = _tag_axes(tag)
    centre = np.array([tag.x_mm, tag.y_mm])
    hx, hy = _half_extent(tag)
    outline = np.array([(-hx, hy), (hx, hy), (hx, -hy), (-hx, -hy)])
    top_xy = centre + outline[:, :1] * right + outline[:, 1:] * up
    lift = bend_mm if bend_mm > 0 else 0.0
    top = np.r_[
        np.c_[top_xy, np.full(4, tag.height_mm)], np.c_[top_xy, np.full(4, tag.height_mm + lift)]
    ]
    foot = np.c_[top_xy, np.zeros(4)]
    px, inside = rays.project(np.r_[top, foot])
    if not inside.all():
        return
    h, w = image.shape[:2]
    x0, y0 = np.floor(px.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 3
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    if tag.base is not None and tag.height_mm > 0:
        side = tuple(int(c * 0.55) for c in tag.base.colour)
        hull = cv2.convexHull(np.round(px[[0, 1, 2, 3, 8, 9, 10, 11]] * 16).astype(np.int32))
        cv2.fillConvexPoly(image, hull, side, cv2.LINE_AA, shift=4)
    # Image scale at the tag (px per mm), to pre-filter the sprite to the pixel size.
    quad = px[:4]
    scale = math.sqrt(abs(cv2.contourArea(quad.astype(np.float32))) / (4 * hx * hy))
    sprite = _prefiltered_sprite(tag, contrast, max(round(scale * 20) / 20, 0.2))
    xn = rays.xn[y0:y1, x0:x1].astype(np.float64)
    yn = rays.yn[y0:y1, x0:x1].astype(np.float64)
    z: float | np.ndarray = tag.height_mm
    for _ in range(3 if bend_mm else 1):  # a bent card: settle on the curved surface
        x, y, hits = rays.on_plane(xn, yn, z)
        du, dv = x - tag.x_mm, y - tag.y_mm
        u = du * right[0] + dv * right[1]
        z = tag.height_mm + _card_lift(tag, u, bend_mm)
    v = du * up[0] + dv * up[1]
    map_c = (sprite.col0 + u * sprite.px_per_mm).astype(np.float32)
    map_r = (sprite.row0 - v * sprite.px_per_mm).astype(np.float32)
    map_c[~(hits & rays.valid[y0:y1, x0:x1])] = -1e4
    layer = cv2.remap(sprite.pixels, map_c, map_r, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    _composite(image[y0:y1, x0:x1], layer)


# --------------------------------------------------------------------------- the hand


def hand_polygon(tip: Point, direction_deg: float = 90.0, scale: float = 1.0) -> tuple[Point, ...]:
    """A hand and forearm reaching towards `direction_deg` with its fingertips at `tip` (mm)."""
    # Outline in a frame where the hand reaches along +y, fingertips at y = 0.
    half_widths = [(0, 12), (-15, 30), (-40, 45), (-80, 48), (-110, 40), (-160, 38), (-420, 45)]
    left = [(-w, y) for y, w in half_widths]
    outline = left + [(w, y) for y, w in reversed(half_widths)]
    a = math.radians(direction_deg - 90)
    c, s = math.cos(a), math.sin(a)
    return tuple(
        (tip[0] + scale * (c * x - s * y), tip[1] + scale * (s * x + c * y)) for x, y in outline
    )


def _densify(polygon: np.ndarray, step_mm: float) -> np.ndarray:
    """More points along the edges, so the outline bends with the lens distortion."""
    out: list[np.ndarray] = []
    for a, b in zip(polygon, np.roll(polygon, -1, axis=0), strict=True):
        n = max(1, math.ceil(float(np.hypot(*(b - a))) / step_mm))
        out.extend(a + (b - a) * t for t in np.arange(n) / n)
    return np.array(out)


def _hand_outline(rays: _Rays, effects: Effects) -> np.ndarray | None:
    """The hand's outline in the image (Nx2), or None when there is no hand in front."""
    if effects.hand is None:
        return None
    poly = _densify(np.asarray(effects.hand, np.float64), 10.0)
    pts = np.c_[poly, np.full(len(poly), effects.hand_height_mm)]
    cam = pts @ rays.rotation.T + rays.tvec
    pts, cam = pts[cam[:, 2] > 1e-3], cam[cam[:, 2] > 1e-3]
    if len(pts) < 3:
        return None
    px, inside = rays.project(pts)
    # Far outside the lens's field the distortion polynomial folds points back into the
    # frame; there a plain pinhole projection keeps the outline outside where it belongs.
    pinhole = cam[:, :2] / cam[:, 2:] * np.diag(rays.matrix)[:2] + rays.matrix[:2, 2]
    return np.where(inside[:, None], px, pinhole)


# --------------------------------------------------------------------------- effects


def _light(image: np.ndarray, effects: Effects) -> np.ndarray:
    """Uneven light and glare: multiply by a smooth gain, push a spot towards white."""
    h, w = image.shape[:2]
    out = image.astype(np.float32)
    if effects.light_gradient:
        a = math.radians(effects.light_angle_deg)
        u, v = np.meshgrid(
            np.linspace(-0.5, 0.5, w, dtype=np.float32),
            np.linspace(-0.5, 0.5, h, dtype=np.float32) * h / w,
        )
        ramp = u * math.cos(a) + v * math.sin(a)
        ramp = (ramp - ramp.min()) / max(float(np.ptp(ramp)), 1e-9)
        out *= (1 - effects.light_gradient * ramp)[..., None]
    if effects.glare is not None:
        g = effects.glare
        u, v = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        r2 = ((u - g.x * w) ** 2 + (v - g.y * h) ** 2) / (g.radius * w) ** 2
        spot = g.strength * np.exp(-r2)
        out += (255 - out) * spot[..., None]
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _motion_kernel(length: float, angle_deg: float) -> np.ndarray:
    """A streak of the given length centred on the pixel, so motion blur moves nothing on
    average: points spread evenly along it, each shared bilinearly between four cells."""
    size = 2 * math.ceil(length / 2) + 3
    kernel = np.zeros((size, size), np.float64)
    c = (size - 1) / 2
    a = math.radians(angle_deg)
    for t in np.linspace(-length / 2, length / 2, 8 * math.ceil(length) + 1):
        x, y = c + t * math.cos(a), c + t * math.sin(a)
        i, j = math.floor(x), math.floor(y)
        fx, fy = x - i, y - j
        kernel[j, i] += (1 - fx) * (1 - fy)
        kernel[j, i + 1] += fx * (1 - fy)
        kernel[j + 1, i] += (1 - fx) * fy
        kernel[j + 1, i + 1] += fx * fy
    return (kernel / kernel.sum()).astype(np.float32)


def _rolling_shift(v: np.ndarray | float, height: int, shift_px: float) -> np.ndarray | float:
    """How far right row v is displaced: 0 at the top row, `shift_px` at the bottom."""
    return shift_px * np.asarray(v) / (height - 1)


def _camera_effects(image: np.ndarray, effects: Effects, rng: np.random.Generator) -> np.ndarray:
    if effects.light_gradient or effects.glare is not None:
        image = _light(image, effects)
    if effects.blur_px > 0:
        image = cv2.GaussianBlur(image, (0, 0), effects.blur_px)
    if effects.motion_blur_px > 0:
        image = cv2.filter2D(
            image, -1, _motion_kernel(effects.motion_blur_px, effects.motion_angle_deg)
        )
    if effects.rolling_shutter_px:
        h, w = image.shape[:2]
        u, v = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        map_x = (u - _rolling_shift(v, h, effects.rolling_shutter_px)).astype(np.float32)
        image = cv2.remap(image, map_x, v, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if effects.noise_sigma > 0:
        noise = np.empty(image.shape, np.int16)
        # OpenCV's generator is several times faster than numpy's at 1080p; seeded from rng.
        cv2.setRNGSeed(int(rng.integers(0, 2**31 - 1)))
        cv2.randn(noise, np.zeros(3), np.full(3, effects.noise_sigma))  # per channel
        image = cv2.add(image, noise, dtype=cv2.CV_8U)
    if effects.jpeg_quality is not None:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, effects.jpeg_quality])
        decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
        assert decoded is not None, "OpenCV failed to round-trip a JPEG"
        image = decoded
    return image


# --------------------------------------------------------------------------- render


def _readonly(array: np.ndarray) -> np.ndarray:
    array = np.array(array, dtype=np.float64)
    array.setflags(write=False)
    return array


def _hand_cover(quad: np.ndarray, hand_px: np.ndarray | None) -> float:
    """Share of a tag's image quad covered by the hand polygon (rasterised around the tag)."""
    if hand_px is None:
        return 0.0
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    hx0, hy0 = hand_px.min(axis=0)
    hx1, hy1 = hand_px.max(axis=0)
    if hx1 < x0 or hx0 > x1 or hy1 < y0 or hy0 > y1:
        return 0.0
    size = (int(y1 - y0), int(x1 - x0))
    tag_mask = np.zeros(size, np.uint8)
    hand_mask = np.zeros(size, np.uint8)
    offset = np.array([x0, y0])
    cv2.fillPoly(tag_mask, [np.round((quad - offset) * 16).astype(np.int32)], 1, shift=4)
    cv2.fillPoly(hand_mask, [np.round((hand_px - offset) * 16).astype(np.int32)], 1, shift=4)
    area = int(tag_mask.sum())
    return float((tag_mask & hand_mask).sum()) / area if area else 0.0


def render(
    table: TableSpec,
    camera: CameraSpec,
    effects: Effects | None = None,
    rng: np.random.Generator | None = None,
    texture_px_per_mm: float | None = None,
) -> Frame:
    """One photograph of `table` by `camera`, with `effects`, and its ground truth.

    `rng` drives the random effects (sensor noise): the same seed gives the same frame.
    `texture_px_per_mm` overrides the table texture's resolution (chosen from the camera).
    """
    effects = effects or Effects()
    rng = rng if rng is not None else np.random.default_rng(0)
    target = camera.target_mm or (table.width_mm / 2, table.depth_mm / 2)
    rays = _rays(camera, target)
    ppm = texture_px_per_mm or _texture_scale(camera, table, target)
    base = _table_texture(
        table.width_mm,
        table.depth_mm,
        table.terrain,
        table.mat_colour,
        table.mat_seed,
        ppm,
        table.mat_squares_mm,
    )
    texture = base.copy()
    bend = effects.card_bend_mm
    contrast = effects.print_contrast
    raised = [t for t in table.tags if t.height_mm > 0 or bend > 0]
    for tag in table.tags:
        if tag.height_mm > 0 or bend > 0:
            continue
        _paint_flat_tag(texture, tag, _prefiltered_sprite(tag, contrast, ppm), ppm)
    fixed, fraction = _table_map(camera, target, ppm)
    image = cv2.remap(
        texture,
        fixed,
        fraction,
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=FLOOR_COLOUR,
    )
    for tag in sorted(raised, key=lambda t: t.height_mm):
        _paint_raised_tag(image, rays, tag, contrast, bend)
    hand_px = _hand_outline(rays, effects)
    if hand_px is not None:
        pts = np.round(hand_px * 16).astype(np.int32)
        cv2.fillPoly(image, [pts], SKIN_COLOUR, cv2.LINE_AA, shift=4)
        cv2.polylines(
            image, [pts], True, tuple(int(c * 0.7) for c in SKIN_COLOUR), 2, cv2.LINE_AA, shift=4
        )
    image = _camera_effects(image, effects, rng)
    image.setflags(write=False)
    truths = tuple(_truth(tag, rays, camera, effects, hand_px) for tag in table.tags)
    rvec, _ = cv2.Rodrigues(rays.rotation)
    camera_truth = CameraTruth(
        matrix=_readonly(rays.matrix),
        distortion=_readonly(rays.distortion),
        rvec=_readonly(rvec.ravel()),
        tvec=_readonly(rays.tvec),
        position_mm=_readonly(rays.centre),
    )
    hand_truth = None if hand_px is None else _readonly(hand_px)
    return Frame(image, FrameTruth(truths, camera_truth, hand_truth))


def tag_truths(
    table: TableSpec, camera: CameraSpec, effects: Effects | None = None
) -> tuple[TagTruth, ...]:
    """The truth `render` would give for each tag of `table`, without drawing the picture."""
    effects = effects or Effects()
    target = camera.target_mm or (table.width_mm / 2, table.depth_mm / 2)
    rays = _rays(camera, target)
    hand_px = _hand_outline(rays, effects)
    return tuple(_truth(tag, rays, camera, effects, hand_px) for tag in table.tags)


def _truth(
    tag: TagSpec, rays: _Rays, camera: CameraSpec, effects: Effects, hand_px: np.ndarray | None
) -> TagTruth:
    corners, inside = rays.project(_corners_3d(tag, effects.card_bend_mm))
    if effects.rolling_shutter_px:
        corners[:, 0] += _rolling_shift(corners[:, 1], camera.height_px, effects.rolling_shutter_px)
    in_frame = (
        inside.all()
        and (corners[:, 0] >= -0.5).all()
        and (corners[:, 0] <= camera.width_px - 0.5).all()
        and (corners[:, 1] >= -0.5).all()
        and (corners[:, 1] <= camera.height_px - 0.5).all()
    )
    cover = _hand_cover(corners, hand_px) if in_frame else 0.0
    return TagTruth(
        family=tag.family,
        tag_id=tag.tag_id,
        centre_mm=(tag.x_mm, tag.y_mm),
        rotation_deg=tag.rotation_deg % 360.0,
        size_mm=tag.size_mm,
        height_mm=tag.height_mm,
        corners_px=_readonly(corners) if in_frame else None,
        occluded=cover > 0,
        hand_fraction=cover,
    )


# --------------------------------------------------------------------------- rigs and scenes


def camera_for_table(
    table: TableSpec,
    width_px: int = 1920,
    height_px: int = 1080,
    height_mm: float = 1500.0,
    tilt_deg: float = 15.0,
    yaw_deg: float = 0.0,
    distortion: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0),
    margin_mm: float = 30.0,
) -> CameraSpec:
    """A camera aimed at the table centre with the longest focal length that still shows the
    whole table and a `margin_mm` of floor around it (distortion included)."""
    corners = np.array(
        [
            (x, y, 0.0)
            for x in np.linspace(-margin_mm, table.width_mm + margin_mm, 9)
            for y in np.linspace(-margin_mm, table.depth_mm + margin_mm, 9)
        ]
    )

    def spec(focal: float) -> CameraSpec:
        return CameraSpec(
            width_px, height_px, height_mm, tilt_deg, yaw_deg, focal_px=focal, distortion=distortion
        )

    def fits(focal: float) -> bool:
        camera = spec(focal)
        rotation, centre = _camera_pose(camera, (table.width_mm / 2, table.depth_mm / 2))
        cam = (corners - centre) @ rotation.T
        if (cam[:, 2] <= 0).any():
            return False
        rvec, _ = cv2.Rodrigues(rotation)
        px, _ = cv2.projectPoints(
            corners, rvec, -rotation @ centre, camera.matrix(), np.array(distortion)
        )
        px = px.reshape(-1, 2)
        return bool(((px >= 0) & (px <= (width_px - 1, height_px - 1))).all())

    low, high = 10.0, 50.0 * width_px
    if not fits(low):
        raise RenderError(
            f"no focal length shows the whole {table.width_mm} x {table.depth_mm} "
            f"mm table from {height_mm} mm with tilt {tilt_deg}"
        )
    for _ in range(50):
        middle = (low + high) / 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return spec(round(low, 3))


TERRAIN_COLOURS: dict[str, BGR] = {
    "woods": (40, 85, 45),
    "hill": (70, 120, 150),
    "road": (120, 150, 165),
    "river": (150, 110, 60),
}


def demo_table(
    width_mm: float = 1800.0,
    depth_mm: float = 1200.0,
    bases: int = 120,
    tag_sizes_mm: tuple[float, float] = (16.0, 25.0),
    height_mm: float = 0.0,
    family: str = "tag36h11",
    corner_tag_mm: float = 60.0,
    seed: int = 0,
) -> TableSpec:
    """A table for the demo and the benchmarks.

    Four corner tags (ids 0-3, `corner_tag_mm`, centred 60 mm in from each corner), then
    `bases` bases with ids from 10, tags between `tag_sizes_mm` on square or round bases a
    little larger, spread without overlapping and turned every which way, and a few terrain
    cards (a wood, a hill, a road, a river) under them."""
    rng = np.random.default_rng(seed)
    inset = 60.0
    corners = [
        TagSpec(family, i, x, y, 90.0, corner_tag_mm)
        for i, (x, y) in enumerate(
            [
                (inset, inset),
                (width_mm - inset, inset),
                (width_mm - inset, depth_mm - inset),
                (inset, depth_mm - inset),
            ]
        )
    ]
    w, d = width_mm, depth_mm
    terrain = (
        TerrainSpec(
            ((0.18 * w, 0.55 * d), (0.34 * w, 0.5 * d), (0.38 * w, 0.75 * d), (0.22 * w, 0.82 * d)),
            TERRAIN_COLOURS["woods"],
        ),
        TerrainSpec(
            ((0.6 * w, 0.2 * d), (0.78 * w, 0.18 * d), (0.82 * w, 0.4 * d), (0.64 * w, 0.44 * d)),
            TERRAIN_COLOURS["hill"],
        ),
        TerrainSpec(
            ((0.0, 0.3 * d), (w, 0.38 * d), (w, 0.42 * d), (0.0, 0.34 * d)), TERRAIN_COLOURS["road"]
        ),
        TerrainSpec(
            (
                (0.45 * w, d),
                (0.5 * w, 0.6 * d),
                (0.47 * w, 0.0),
                (0.5 * w, 0.0),
                (0.53 * w, 0.6 * d),
                (0.48 * w, d),
            ),
            TERRAIN_COLOURS["river"],
        ),
    )
    placed: list[TagSpec] = []
    keep_out = [(x, y, corner_tag_mm) for x, y in ((t.x_mm, t.y_mm) for t in corners)]
    attempts = 0
    while len(placed) < bases:
        attempts += 1
        if attempts > 200 * max(bases, 1):
            raise RenderError(f"cannot place {bases} bases on a {w} x {d} mm table")
        size = float(rng.uniform(*tag_sizes_mm))
        side = round(size * 1.25 + 6.0, 1)  # the printed card and a 3 mm rim of base
        x = float(rng.uniform(side + 40, w - side - 40))
        y = float(rng.uniform(side + 40, d - side - 40))
        if any(
            math.hypot(x - ox, y - oy) < (side + other) * 0.75 + 4 for ox, oy, other in keep_out
        ):
            continue
        round_base = bool(rng.random() < 0.3)
        b, g, r = (int(c) for c in rng.integers(40, 110, 3))
        base = (
            BaseSpec(diameter_mm=side, colour=(b, g, r))
            if round_base
            else BaseSpec(width_mm=side, depth_mm=side, colour=(b, g, r))
        )
        placed.append(
            TagSpec(
                family,
                10 + len(placed),
                x,
                y,
                float(rng.uniform(0, 360)),
                round(size, 2),
                height_mm,
                base=base,
            )
        )
        keep_out.append((x, y, side))
    return TableSpec(width_mm, depth_mm, terrain, (*corners, *placed), mat_seed=seed)


def moving(
    table: TableSpec,
    rng: np.random.Generator,
    step_mm: float = 2.0,
    turn_deg: float = 3.0,
    share: float = 0.2,
) -> TableSpec:
    """The same table a moment later: a `share` of the based tags nudged by up to `step_mm`
    and turned by up to `turn_deg`, kept on the table. Corner tags (no base) never move."""
    tags = []
    for tag in table.tags:
        if tag.base is not None and rng.random() < share:
            dx, dy = rng.uniform(-step_mm, step_mm, 2)
            margin = tag.card_mm
            tag = replace(
                tag,
                x_mm=float(np.clip(tag.x_mm + dx, margin, table.width_mm - margin)),
                y_mm=float(np.clip(tag.y_mm + dy, margin, table.depth_mm - margin)),
                rotation_deg=float((tag.rotation_deg + rng.uniform(-turn_deg, turn_deg)) % 360),
            )
        tags.append(tag)
    return replace(table, tags=tuple(tags))


@dataclass(slots=True)
class Scenario:
    """Successive frames of a game in progress: bases shuffle a little every frame and, once
    every `hand_period` frames, a player's hand reaches in from the near edge and out again."""

    table: TableSpec
    camera: CameraSpec
    effects: Effects = field(default_factory=Effects)
    seed: int = 0
    hand_period: int = 40
    """Frames per hand pass (0: no hand)."""
    hand_frames: int = 16
    """How many frames of each period the hand is over the table."""

    def frames(self, count: int) -> Iterator[Frame]:
        rng = np.random.default_rng(self.seed)
        table = self.table
        reach_x = float(rng.uniform(0.25, 0.75)) * table.width_mm
        for index in range(count):
            table = moving(table, rng)
            effects = replace(self.effects, hand=self._hand(index, reach_x))
            yield render(table, self.camera, effects, rng)

    def _hand(self, index: int, reach_x: float) -> tuple[Point, ...] | None:
        """The hand's outline at frame `index`: in and out along a straight line."""
        if self.hand_period <= 0:
            return self.effects.hand
        phase = index % self.hand_period
        if phase >= self.hand_frames:
            return self.effects.hand
        # 0 -> 1 -> 0 over the pass: how far across the table the fingertips reach.
        progress = math.sin(math.pi * (phase + 0.5) / self.hand_frames)
        tip = (reach_x, -50.0 + progress * 0.55 * self.table.depth_mm)
        return hand_polygon(tip, 90.0 + 10.0 * math.sin(index))


def timed_render(
    table: TableSpec, camera: CameraSpec, effects: Effects | None = None, seed: int = 0
) -> tuple[Frame, float]:
    """Render once and return the frame with the seconds it took (for benchmarks)."""
    start = time.perf_counter()
    frame = render(table, camera, effects, np.random.default_rng(seed))
    return frame, time.perf_counter() - start
