"""Loading a photo safely: a clear error for anything that is not a whole, sane image.

Phones and webcams send JPEG or PNG, iPhones HEIC (their default: read with pillow-heif,
turned as the camera held it, as OpenCV turns a JPEG by its EXIF orientation); a broken
upload, a truncated file or a 100-megapixel panorama must be refused with a message, never
half-read.

>>> import tempfile, pathlib
>>> bad = pathlib.Path(tempfile.mkdtemp()) / "notes.jpg"
>>> _ = bad.write_text("not a picture")
>>> load_photo(bad)
Traceback (most recent call last):
...
vision.photo.UnreadablePhoto: notes.jpg: not an image boardsight can decode (JPEG, PNG, HEIC, ...)
"""

from __future__ import annotations

import warnings
from io import BytesIO
from pathlib import Path

import cv2
import numpy as np

MAX_PIXELS = 50_000_000
"""Largest photo accepted: phones take 12-50 MP; beyond that is a panorama or a mistake."""

_JPEG_SOI, _JPEG_EOI = b"\xff\xd8", b"\xff\xd9"
_PNG_SIGNATURE, _PNG_IEND = b"\x89PNG\r\n\x1a\n", b"IEND"
# an ISO-BMFF file's first box: size, "ftyp", then its brand; these are HEIF stills
_HEIF_BRANDS = (b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1")


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
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        return _decode_heif(data, name, max_pixels)
    _check_size(_header_size(data), name, max_pixels)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise UnreadablePhoto(f"{name}: not an image boardsight can decode "
                              "(JPEG, PNG, HEIC, ...)")
    if image.shape[0] * image.shape[1] > max_pixels:
        raise UnreadablePhoto(f"{name}: {image.shape[1]}×{image.shape[0]} is too large; at "
                              f"most {max_pixels / 1e6:.0f} megapixels are read")
    return image


def _check_size(size: tuple[int, int] | None, name: str, max_pixels: int) -> None:
    """Refuse a (width, height) over ``max_pixels`` before it is decoded."""
    if size is not None and size[0] * size[1] > max_pixels:
        raise UnreadablePhoto(f"{name}: {size[0]}×{size[1]} is {size[0] * size[1] / 1e6:.0f} "
                              f"megapixels; at most {max_pixels / 1e6:.0f} are read — "
                              "use the camera's normal photo size")


def _decode_heif(data: bytes, name: str, max_pixels: int) -> np.ndarray:
    """A HEIC photo's primary image as BGR uint8, 8 bits a channel, upright: libheif
    applies the file's own turn and mirror (and pillow-heif then clears the EXIF
    orientation, which would turn it twice)."""
    import pillow_heif

    try:
        heif = pillow_heif.open_heif(BytesIO(data), convert_hdr_to_8bit=True)
        _check_size(heif.size, name, max_pixels)
        rgb = np.asarray(heif.to_pillow().convert("RGB"))
    except UnreadablePhoto:
        raise
    except Exception as exc:   # libheif's errors: a cut-short or damaged file
        raise UnreadablePhoto(f"{name}: the HEIC photo cannot be decoded ({exc}); it may be "
                              "truncated: take or send the photo again") from None
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)


def _header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the header, without decoding, where Pillow can tell."""
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
