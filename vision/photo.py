"""Loading a photo safely: a clear error for anything that is not a whole, sane image.

Phones and webcams send JPEG or PNG; a broken upload, a truncated file or a 100-megapixel
panorama must be refused with a message, never half-read.

>>> import tempfile, pathlib
>>> bad = pathlib.Path(tempfile.mkdtemp()) / "notes.jpg"
>>> _ = bad.write_text("not a picture")
>>> load_photo(bad)
Traceback (most recent call last):
...
vision.photo.UnreadablePhoto: notes.jpg: not an image OpenCV can decode (JPEG, PNG, ...)
"""

from __future__ import annotations

import warnings
from pathlib import Path

import cv2
import numpy as np

MAX_PIXELS = 50_000_000
"""Largest photo accepted: phones take 12-50 MP; beyond that is a panorama or a mistake."""

_JPEG_SOI, _JPEG_EOI = b"\xff\xd8", b"\xff\xd9"
_PNG_SIGNATURE, _PNG_IEND = b"\x89PNG\r\n\x1a\n", b"IEND"


class UnreadablePhoto(ValueError):
    """The file is missing, not an image, truncated, or too large."""


def load_photo(path: str | Path, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """The photo at ``path`` as a (H, W, 3) BGR uint8 array.

    Raises
    ------
    UnreadablePhoto
        With a message naming the file and what is wrong with it.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise UnreadablePhoto(f"{path}: no such file") from None
    except OSError as exc:
        raise UnreadablePhoto(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return decode_photo(data, name=path.name, max_pixels=max_pixels)


def decode_photo(data: bytes, name: str = "photo", max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Decode image bytes (an upload, a file's content) like :func:`load_photo`."""
    if not data:
        raise UnreadablePhoto(f"{name}: the file is empty")
    if data.startswith(_JPEG_SOI) and _JPEG_EOI not in data[-1024:]:
        # OpenCV decodes a truncated JPEG with a grey bottom and only a warning.
        raise UnreadablePhoto(f"{name}: the JPEG is truncated (the upload or copy was cut "
                              "short); take or send the photo again")
    if data.startswith(_PNG_SIGNATURE) and _PNG_IEND not in data[-64:]:
        raise UnreadablePhoto(f"{name}: the PNG is truncated; send the picture again")
    size = _header_size(data)
    if size is not None and size[0] * size[1] > max_pixels:
        raise UnreadablePhoto(f"{name}: {size[0]}×{size[1]} is {size[0] * size[1] / 1e6:.0f} "
                              f"megapixels; at most {max_pixels / 1e6:.0f} are read — "
                              "use the camera's normal photo size")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise UnreadablePhoto(f"{name}: not an image OpenCV can decode (JPEG, PNG, ...)")
    if image.shape[0] * image.shape[1] > max_pixels:
        raise UnreadablePhoto(f"{name}: {image.shape[1]}×{image.shape[0]} is too large; at "
                              f"most {max_pixels / 1e6:.0f} megapixels are read")
    return image


def _header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the header, without decoding, where Pillow can tell."""
    from io import BytesIO

    from PIL import Image

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            with Image.open(BytesIO(data)) as im:
                return im.size
        except Image.DecompressionBombError:
            return (1 << 16, 1 << 16)  # Pillow refuses even the header: far too large
        except Exception:  # not an image Pillow knows: OpenCV has the last word
            return None
