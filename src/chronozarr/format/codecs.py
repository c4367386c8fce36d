"""The compression codecs a store may use (spec 8), as Zarr v3 JSON and as numcodecs objects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numcodecs
import numpy as np

CODEC_NAMES = ("zstd", "blosc", "gzip")
BLOSC_CNAMES = ("zstd", "lz4")
BLOSC_SHUFFLES = ("noshuffle", "shuffle")


@dataclass(frozen=True)
class CodecSpec:
    """One compression codec with its settings; `bytes` little-endian always comes first."""

    name: str = "zstd"
    level: int = 5
    cname: str = "zstd"
    shuffle: str = "noshuffle"

    def __post_init__(self) -> None:
        if self.name not in CODEC_NAMES:
            raise ValueError(f"codec must be one of {', '.join(CODEC_NAMES)}, got {self.name!r}")
        low, high = {"zstd": (-131072, 22), "blosc": (0, 9), "gzip": (1, 9)}[self.name]
        if not low <= self.level <= high:
            raise ValueError(f"{self.name} level must be between {low} and {high}, got {self.level}")
        if self.name == "blosc":
            if self.cname not in BLOSC_CNAMES:
                raise ValueError(f"blosc cname must be zstd or lz4, got {self.cname!r}")
            if self.shuffle not in BLOSC_SHUFFLES:
                raise ValueError(f"blosc shuffle must be noshuffle or shuffle, got {self.shuffle!r}")

    @classmethod
    def create(cls, name: str = "zstd", level: int | None = None, **blosc: str) -> "CodecSpec":
        """A codec with its default level (zstd 5, blosc 5, gzip 5) unless one is given."""
        return cls(name=name, level=5 if level is None else level, **blosc)

    def to_json(self, dtype: np.dtype) -> dict[str, Any]:
        """The Zarr v3 codec entry for data of this dtype."""
        if self.name == "zstd":
            return {"name": "zstd", "configuration": {"level": self.level, "checksum": False}}
        if self.name == "gzip":
            return {"name": "gzip", "configuration": {"level": self.level}}
        return {
            "name": "blosc",
            "configuration": {
                "cname": self.cname,
                "clevel": self.level,
                "shuffle": self.shuffle,
                "typesize": int(np.dtype(dtype).itemsize),
                "blocksize": 0,
            },
        }

    @classmethod
    def from_json(cls, entry: dict[str, Any]) -> "CodecSpec":
        """Parse a Zarr v3 codec entry; unsupported codecs and settings raise ValueError naming them."""
        name = entry.get("name")
        config = entry.get("configuration") or {}
        if name == "zstd":
            return cls("zstd", int(config.get("level", 0)))
        if name == "gzip":
            return cls("gzip", int(config.get("level", 5)))
        if name == "blosc":
            shuffle = config.get("shuffle", "noshuffle")
            return cls("blosc", int(config.get("clevel", 5)), str(config.get("cname", "zstd")), str(shuffle))
        raise ValueError(f"unsupported codec {name!r}: chronozarr stores use zstd, blosc or gzip (spec 8)")

    def compressor(self, dtype: np.dtype) -> numcodecs.abc.Codec:
        """A numcodecs codec producing exactly the bytes a Zarr v3 reader expects."""
        if self.name == "zstd":
            return numcodecs.Zstd(level=self.level, checksum=False)
        if self.name == "gzip":
            return numcodecs.GZip(level=self.level)
        shuffle = numcodecs.Blosc.SHUFFLE if self.shuffle == "shuffle" else numcodecs.Blosc.NOSHUFFLE
        return numcodecs.Blosc(cname=self.cname, clevel=self.level, shuffle=shuffle, blocksize=0)


def bytes_codec(dtype: np.dtype) -> dict[str, Any]:
    """`bytes` little-endian; one-byte dtypes have no byte order, so the setting is omitted."""
    if np.dtype(dtype).itemsize == 1:
        return {"name": "bytes"}
    return {"name": "bytes", "configuration": {"endian": "little"}}
