"""Write the Windows and macOS icons (dp-workbench.ico, dp-workbench.icns) from packaging/dp-workbench.png,
into the folder given (default: packaging/). The hosted builds run it before PyInstaller; Pillow, which
the build environment has (matplotlib needs it), does the writing on any platform.

    python packaging/platform_icons.py [FOLDER]
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

HERE = Path(__file__).resolve().parent


def write_icons(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    image = Image.open(HERE / "dp-workbench.png").convert("RGBA")
    ico, icns = folder / "dp-workbench.ico", folder / "dp-workbench.icns"
    image.save(ico, sizes=[(16, 16), (24, 24), (32, 32), (48, 48), (64, 64), (128, 128), (256, 256)])
    image.save(icns)  # Pillow writes the sizes macOS asks for up to the image's own (256 px)
    return ico, icns


if __name__ == "__main__":
    for path in write_icons(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE):
        print(path)
