"""Draws media/icon.png (128x128): a chip with an upward chevron, NVIDIA-ish green. Standard library only."""
import struct
import zlib
from pathlib import Path

N = 128
GREEN, DARK, WHITE, CLEAR = (118, 185, 0, 255), (32, 52, 8, 255), (250, 250, 250, 255), (0, 0, 0, 0)


def pixel(x: int, y: int):
    r = 22  # rounded corners of the background
    cx, cy = min(max(x, r), N - 1 - r), min(max(y, r), N - 1 - r)
    if (x - cx) ** 2 + (y - cy) ** 2 > r * r:
        return CLEAR
    if 30 <= x < 98 and 30 <= y < 98:  # the chip
        # an upward chevron in its middle: two strokes meeting at the top
        u, v = x - 64, y - 46
        if 0 <= v < 40 and abs(abs(u) - v) <= 6 and v + 0 <= 34:
            return GREEN
        return WHITE if not (34 <= x < 94 and 34 <= y < 94) else DARK
    for p in range(36, 96, 12):  # pins on the four sides
        if p <= x < p + 6 and (18 <= y < 30 or 98 <= y < 110):
            return WHITE
        if p <= y < p + 6 and (18 <= x < 30 or 98 <= x < 110):
            return WHITE
    return GREEN


def png(path: Path) -> None:
    rows = b"".join(b"\0" + b"".join(bytes(pixel(x, y)) for x in range(N)) for y in range(N))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", N, N, 8, 6, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    png(Path(__file__).with_name("icon.png"))
