"""``jpeg``: decode, random-resized-crop, flip and normalise real JPEG files (CPU-bound)."""

from __future__ import annotations

import contextlib
import math
import os
import random
import shutil
import tempfile
from pathlib import Path

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset

from loadertune.workloads.cache import cache_root

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


def _synthetic_image(rng: np.random.Generator, width: int, height: int) -> Image.Image:
    """A photo-like picture: smooth gradients, blobs and sensor noise (JPEG-realistic)."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    img = np.zeros((height, width, 3), dtype=np.float32)
    for c in range(3):
        fx, fy, phase = [*rng.uniform(0.5, 4, 2).tolist(), rng.uniform(0, 6.3)]
        img[..., c] = 0.5 + 0.35 * np.sin(fx * x / width * 6.3 + phase) * np.cos(fy * y / height)
    for _ in range(6):
        cx, cy = rng.uniform(0, width), rng.uniform(0, height)
        r = rng.uniform(10, min(width, height) / 3)
        mask = ((x - cx) ** 2 + (y - cy) ** 2) < r * r
        img[mask] = rng.uniform(0, 1, 3)
    img += rng.normal(0, 0.04, img.shape).astype(np.float32)
    return Image.fromarray((np.clip(img, 0, 1) * 255).astype(np.uint8))


def generate(folder: Path, count: int, width: int = 320, height: int = 240,
             seed: int = 0) -> list[Path]:
    """Write ``count`` JPEGs into ``folder`` once (atomically: a finished folder or none)."""
    names = [f"{i:06d}.jpg" for i in range(count)]
    done = folder / ".complete"
    if done.exists():
        held = int(done.read_text().split()[0])
        if held != count:
            raise ValueError(f"{folder} already holds {held} generated JPEGs, not {count}; "
                             "use another folder for another size")
        return [folder / n for n in names]
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        rng = np.random.default_rng(seed)
        for name in names:
            _synthetic_image(rng, width, height).save(tmp / name, quality=90)
        (tmp / ".complete").write_text(f"{count}\n")
        try:
            os.replace(tmp, folder)
        except OSError:  # another process finished first
            if not (folder / ".complete").exists():
                raise
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(tmp)
    return [folder / n for n in names]


class JpegDataset(Dataset):
    """Images from files: decode (Pillow), random resized crop, flip, normalise, CHW tensor."""

    def __init__(self, paths: list[Path], crop: int = 224, seed: int = 0) -> None:
        if not paths:
            raise ValueError("JpegDataset needs at least one file")
        self.paths = [str(p) for p in paths]
        self.crop = crop
        self.seed = seed

    def __len__(self) -> int:
        return len(self.paths)

    def _crop_box(self, rng: random.Random, width: int, height: int) -> tuple[int, ...]:
        area = width * height
        for _ in range(10):
            target = area * rng.uniform(0.25, 1.0)
            ratio = math.exp(rng.uniform(math.log(3 / 4), math.log(4 / 3)))
            w = round(math.sqrt(target * ratio))
            h = round(math.sqrt(target / ratio))
            if 0 < w <= width and 0 < h <= height:
                left, top = rng.randint(0, width - w), rng.randint(0, height - h)
                return left, top, left + w, top + h
        side = min(width, height)
        return (width - side) // 2, (height - side) // 2, (width + side) // 2, (height + side) // 2

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        rng = random.Random(self.seed * 1_000_003 + index)
        with Image.open(self.paths[index]) as img:
            img = img.convert("RGB")
            img = img.resize((self.crop, self.crop), Image.BILINEAR,
                             box=self._crop_box(rng, *img.size))
        if rng.random() < 0.5:
            img = img.transpose(Image.FLIP_LEFT_RIGHT)
        arr = (np.asarray(img, dtype=np.float32) / 255.0 - MEAN) / STD
        return torch.from_numpy(arr.transpose(2, 0, 1).copy()), index % 10


def jpeg(size: int = 256, width: int = 500, height: int = 375, crop: int = 224,
         folder: str | Path | None = None) -> JpegDataset:
    """``size`` JPEG files of ``width``×``height`` generated once into the cache folder."""
    where = Path(folder) if folder else cache_root() / f"jpeg-{size}-{width}x{height}"
    return JpegDataset(generate(where, size, width, height), crop=crop)
