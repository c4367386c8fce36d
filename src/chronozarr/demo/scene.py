"""The river scene, rendered one monthly composite at a time: the landscape, the migrating
channel and its scroll bars, the seasons, the fields and the clouds."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..format.metadata import Band

BANDS = (
    Band("B02", "blue", 1e-4, 0.0, "reflectance"),
    Band("B03", "green", 1e-4, 0.0, "reflectance"),
    Band("B04", "red", 1e-4, 0.0, "reflectance"),
    Band("B08", "nir", 1e-4, 0.0, "reflectance"),
)

# Reflectance x 10000 in band order B02, B03, B04, B08.
WATER = np.array([760, 850, 620, 240], np.float32)
TURBID = np.array([860, 1030, 960, 430], np.float32)  # sediment plumes mix into the water
SAND = np.array([1400, 1650, 1950, 2400], np.float32)
SOIL = np.array([680, 930, 1180, 1850], np.float32)  # tilled fields
FOREST_DRY = np.array([300, 520, 380, 2500], np.float32)
FOREST_WET = np.array([250, 600, 250, 3500], np.float32)
PIONEER_DRY = np.array([420, 700, 560, 2700], np.float32)  # young cane and willow on new bars
PIONEER_WET = np.array([330, 820, 330, 4200], np.float32)
CLOUD = np.array([6600, 6750, 6900, 7200], np.float32)
SENSOR_NOISE = np.array([3, 3, 4, 10], np.float32)  # per-date noise of a monthly composite, DN


def _season(month: float) -> float:
    """0 in the dry season (September), 1 at the wet-season peak (March)."""
    return 0.5 + 0.5 * float(np.cos(2 * np.pi * (month - 2.5) / 12))


class Scene:
    """Static landscape and the river's history; `date(t)` renders one monthly composite."""

    def __init__(self, height: int, width: int, seed: int) -> None:
        self.h, self.w, self.seed = height, width, seed
        self.k = height / 768  # lengths below are in pixels of the full-size scene, times k
        self.half_width = 13.0 * self.k
        rng = np.random.default_rng([seed, 0])
        shape = (height, width)
        texture = _smooth_noise(rng, shape, [120 * self.k, 40 * self.k, 12 * self.k, 3], [0.8, 0.6, 0.6, 0.45])
        texture += 0.5 * rng.standard_normal(shape, dtype=np.float32)  # tree crowns at 10 m: pixel grain
        texture /= texture.std()
        self.gain = 1 + np.array([0.14, 0.13, 0.15, 0.09], np.float32)[:, None, None] * texture
        self.ground = _mix(SAND, SAND * 0.8, np.clip(0.5 + 0.12 * texture, 0, 1))
        self.silt = _unit(_smooth_noise(rng, shape, [90 * self.k, 25 * self.k], [1, 0.5]))
        self.obs = _smooth_noise(rng, shape, [150 * self.k], [1])  # orbit overlaps behind coverage
        # Per-date sensor noise is cut from a pool at random offsets: cheaper than fresh draws.
        self.noise = rng.standard_normal((2, height + 64, width + 64), dtype=np.float32)
        self.year_green = [float(v) for v in 0.12 * rng.standard_normal(20)]  # wetter and drier years
        self.year_flood = [float(v) for v in 0.15 * rng.standard_normal(20)]
        self.phase0 = float(rng.uniform(0, 2 * np.pi))
        self.oxbows = np.zeros(shape, np.float32)
        for lake in _oxbows(height, width, self.k):
            np.maximum(self.oxbows, _arc(height, width, *lake), out=self.oxbows)
        self.fields, self.field_phase = _fields(rng, height, width, self.k)
        self.field_grain = [1 + 0.03 * texture[r0:r1, c0:c1] for r0, r1, c0, c1 in self.fields]
        self.rows = np.arange(height, dtype=np.float32)[:, None]
        self.cols = np.arange(width, dtype=np.float32)
        self.last_wet = np.full(shape, -1e6, np.float32)  # month the channel last covered each pixel
        # Six years of earlier migration leave scroll bars of every age on the first date.
        for month in np.arange(-72.0, 0.0, 1.0):
            offset, _ = self._channel(month)
            self.last_wet[np.abs(offset) < self.half_width] = month

    def _centreline(self, month: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """y, direction and curvature of the channel centreline at every column (Kinoshita bends)."""
        k = self.k
        frac = month / 120.0
        wavelength = 430.0 * k
        theta0 = 1.02 + 0.26 * frac  # bends grow sharper ...
        phase = self.phase0 - 2 * np.pi * 0.3 * frac  # ... and travel downstream (+x)
        ds = 0.5
        half = int(2.2 * (self.w / 2 + 200 * k) / ds)
        s = np.arange(-half, half + 1, dtype=np.float64) * ds
        # Irregular bends: the wavelength and the amplitude wander along the river.
        phi = 2 * np.pi * s / wavelength + 0.9 * np.sin(2 * np.pi * s / (2.7 * wavelength) + 2.0) + phase
        amp = theta0 * (1 + 0.16 * np.sin(2 * np.pi * s / (3.9 * wavelength) + 1.0))
        theta = amp * np.sin(phi) + amp**3 * (0.035 * np.cos(3 * phi) - 0.012 * np.sin(3 * phi))
        # Soften the steepest reaches so x stays monotone and the across-channel distance holds.
        steep = np.abs(theta)
        theta = np.sign(theta) * (np.minimum(steep, 1.05) + 0.25 * np.tanh(np.maximum(steep - 1.05, 0) / 0.25))
        xs = np.cumsum(np.cos(theta)) * ds
        ys = np.cumsum(np.sin(theta)) * ds
        # Centre the meander belt on the valley axis whatever the phase of the bends.
        window = int(round(wavelength / ds))
        ys -= np.convolve(ys, np.full(window, 1.0 / window), mode="same")
        xs += self.w / 2 - xs[np.searchsorted(s, 0.0)]
        ys += self.h / 2 + 45 * k * np.sin(2 * np.pi * xs / (2.6 * self.w) + 0.8)
        curvature = np.gradient(theta, ds)
        cols = self.cols
        return (
            np.interp(cols, xs, ys).astype(np.float32),
            np.interp(cols, xs, theta).astype(np.float32),
            np.interp(cols, xs, curvature).astype(np.float32),
        )

    def _channel(self, month: float) -> tuple[np.ndarray, np.ndarray]:
        """Signed distance across the channel (pixels), and per pixel how sharp the bend is when
        the pixel lies on its inside (0 on the outside). Rows far from the river get a large distance."""
        yc, theta, curvature = self._centreline(month)
        top = int(max(yc.min() - 4 * self.half_width - 2, 0))
        bottom = int(min(yc.max() + 4 * self.half_width + 3, self.h))
        rows, cols = self.rows[top:bottom], self.cols
        # Distance to the tangent at the point straight above or below, then once more to the
        # tangent at the foot of that perpendicular: close to the true distance even on steep reaches.
        first = (rows - yc) * np.cos(theta)
        foot = cols + first * np.sin(theta)
        foot_y = np.interp(foot, cols, yc).astype(np.float32)
        foot_theta = np.interp(foot, cols, theta).astype(np.float32)
        near = (rows - foot_y) * np.cos(foot_theta) - (cols - foot) * np.sin(foot_theta)
        # The centre of curvature lies on the side of positive offset when the curvature is positive.
        bend = np.clip(np.interp(foot, cols, curvature) / (0.016 / self.k), -1, 1).astype(np.float32)
        offset = np.full((self.h, self.w), 1e4, np.float32)
        offset[top:bottom] = near
        inner = np.zeros((self.h, self.w), np.float32)
        inner[top:bottom] = np.where(near * bend > 0, np.abs(bend), 0)
        return offset, inner

    def date(self, t: int, cloudy: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(data (band, y, x) uint16, mask (y, x), coverage (y, x)) of month t; call in order of t."""
        month = float(t)
        year = min(t // 12, len(self.year_green) - 1)
        green = min(max(_season(month) + self.year_green[year], 0.0), 1.0)
        stage = min(max(_season(month - 0.5) + self.year_flood[year], 0.0), 1.0)  # peaks after the rains
        hw = self.half_width
        offset, inner = self._channel(month)
        dist = np.abs(offset)
        self.last_wet[dist < hw] = month
        # Low water exposes the point bar on the inside of each bend.
        water = np.clip(hw + 0.5 - 0.7 * hw * (1 - stage) * np.minimum(inner * 1.5, 1) - dist, 0, 1)
        np.maximum(water, self.oxbows, out=water)
        age = month - self.last_wet
        cover = np.clip(1 - np.exp(-(age - 4) / 16), 0, 1)
        cover *= 0.8 + 0.2 * (0.5 + 0.5 * np.sin(2 * np.pi * self.last_wet / 12))  # ridges and swales
        cover[age > 1e5] = 1.0
        young = np.exp(-np.clip(age, 0, None) / 60)  # pioneer growth ages into forest
        turbidity = self.silt * (0.4 + 0.6 * stage)
        rng = np.random.default_rng([self.seed, 2, t])
        atmosphere = 1 + 0.02 * rng.standard_normal(len(BANDS))
        picks = rng.integers(0, [2, 65, 65], size=(len(BANDS), 3))
        valid = np.ones((self.h, self.w), bool)
        clouds = self._clouds(rng) if cloudy else None
        data = np.empty((len(BANDS), self.h, self.w), np.uint16)
        for b in range(len(BANDS)):
            forest = FOREST_DRY[b] + (FOREST_WET[b] - FOREST_DRY[b]) * green
            pioneer = PIONEER_DRY[b] + (PIONEER_WET[b] - PIONEER_DRY[b]) * green
            canopy = (forest + (pioneer - forest) * young) * self.gain[b]
            land = self.ground[b] + (canopy - self.ground[b]) * cover
            self._farm(land, b, month)
            river = WATER[b] + (TURBID[b] - WATER[b]) * turbidity
            band = land + (river - land) * water
            band *= atmosphere[b]
            i, dy, dx = picks[b]
            band += SENSOR_NOISE[b] * self.noise[i, dy : dy + self.h, dx : dx + self.w]
            if clouds is not None:
                opacity, shadow, brightness = clouds
                band = band * (1 - 0.55 * shadow) * (1 - opacity) + CLOUD[b] * brightness * opacity
            data[b] = np.clip(np.rint(band), 1, 65535)
        if clouds is not None:
            valid = (clouds[0] < 0.02) & (clouds[1] < 0.1)
        counts = np.clip(np.rint(3.4 + 1.4 * self.obs - 0.8 * green + 0.3 * rng.standard_normal()), 1, 5)
        coverage = np.where(valid, counts, 0).astype(np.uint8)
        return data, valid.astype(np.uint8), coverage

    def _farm(self, land: np.ndarray, b: int, month: float) -> None:
        """Fields on the terrace: bare after harvest, green at the peak of their crop."""
        for (r0, r1, c0, c1), phase, grain in zip(self.fields, self.field_phase, self.field_grain, strict=False):
            crop = 0.5 + 0.5 * np.cos(2 * np.pi * (month - phase) / 12)
            crop = min(max(1.6 * crop - 0.3, 0.0), 1.0)
            land[r0:r1, c0:c1] = (SOIL[b] + (PIONEER_WET[b] - SOIL[b]) * crop) * grain

    def _clouds(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Cumulus over a tenth to a third of the scene, with shadows cast to the south-west:
        (opacity, shadow, brightness) planes."""
        k = self.k
        field = _smooth_noise(rng, (self.h, self.w), [160 * k, 55 * k, 18 * k, 6 * k], [1, 0.6, 0.35, 0.2])
        threshold = np.quantile(field, 1 - rng.uniform(0.1, 0.32))
        opacity = np.clip((field - threshold) / (0.5 * field.std()), 0, 1)
        dy, dx = round(22 * k), round(30 * k)
        shadow = np.zeros_like(opacity)
        shadow[dy:, : self.w - dx] = opacity[: self.h - dy, dx:]
        shadow *= 1 - opacity
        brightness = 0.92 + 0.05 * field / field.std()
        return opacity, shadow, brightness


def _mix(a: np.ndarray, b: np.ndarray, weight: np.ndarray | float) -> np.ndarray:
    """(1 - weight) * a + weight * b; a band vector broadcasts over (band, y, x)."""
    a = a[:, None, None] if a.ndim == 1 else a
    b = b[:, None, None] if b.ndim == 1 else b
    return a + (b - a) * weight


def _unit(values: np.ndarray) -> np.ndarray:
    low, high = values.min(), values.max()
    return (values - low) / (high - low) if high > low else np.zeros_like(values)


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], sizes: Sequence[float], weights: Sequence[float]) -> np.ndarray:
    """Value noise: octaves of coarse random grids, each upsampled smoothly to `shape`."""
    height, width = shape
    out = np.zeros(shape, np.float32)
    for size, weight in zip(sizes, weights, strict=False):
        size = max(float(size), 1.0)
        grid = rng.standard_normal((int(height / size) + 3, int(width / size) + 3), dtype=np.float32)
        fy = np.arange(height) / size + rng.uniform(0, 1)
        fx = np.arange(width) / size + rng.uniform(0, 1)
        iy, ix = fy.astype(int), fx.astype(int)
        wy, wx = _smoothstep(fy - iy)[:, None], _smoothstep(fx - ix)[None, :]
        rows = grid[:, ix] * (1 - wx) + grid[:, ix + 1] * wx
        out += weight * (rows[iy] * (1 - wy) + rows[iy + 1] * wy)
    return out


def _smoothstep(w: np.ndarray) -> np.ndarray:
    return (w * w * (3 - 2 * w)).astype(np.float32)


def _arc(height: int, width: int, cy: float, cx: float, radius: float, band: float, start: float, stop: float) -> np.ndarray:
    """Water fraction of an oxbow lake: part of a ring, tapering at its ends."""
    y = np.arange(height, dtype=np.float32)[:, None] - cy
    x = np.arange(width, dtype=np.float32)[None, :] - cx
    theta = np.arctan2(y, x)
    angle = np.mod(theta - start, 2 * np.pi)
    span = np.mod(stop - start, 2 * np.pi)
    taper = np.clip(np.minimum(angle, span - angle) / 0.35, 0, 1) * (angle <= span)
    radius = radius * (1 + 0.14 * np.sin(2 * theta + 0.9) + 0.05 * np.sin(3 * theta))  # not a circle
    return np.clip(band * taper - np.abs(np.hypot(y, x) - radius) + 0.5, 0, 1).astype(np.float32)


def _oxbows(height: int, width: int, k: float) -> list[tuple[float, float, float, float, float, float]]:
    """Two cut-off loops from older courses, far enough from the active belt."""
    return [
        (0.14 * height, 0.22 * width, 62 * k, 6 * k, 0.3, 5.2),
        (0.86 * height, 0.74 * width, 50 * k, 5 * k, 3.6, 2.3),
    ]


def _fields(rng: np.random.Generator, height: int, width: int, k: float) -> tuple[list[tuple[int, int, int, int]], list[float]]:
    """A block of rectangular fields on the terrace, split by narrow tracks."""
    boxes = []
    top, left = int(0.03 * height), int(0.58 * width)
    size_y, size_x, gap = max(2, int(46 * k)), max(2, int(62 * k)), max(1, int(3 * k))
    for i in range(2):
        for j in range(4):
            r0, c0 = top + i * (size_y + gap), left + j * (size_x + gap)
            boxes.append((r0, min(height, r0 + size_y), c0, min(width, c0 + size_x)))
    phases = [float(p) for p in rng.uniform(0, 12, len(boxes))]
    return boxes, phases
