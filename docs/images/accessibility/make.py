"""Screenshots of the six steps at 1366x768 with the system font 150% larger and a dark palette (issue 23).

    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/images/accessibility/make.py docs/images/accessibility

The dark palette is Qt's Fusion style with dark colours, as a desktop's dark theme gives; the font is the
desktop's default, one and a half times its size. The release goes to a throw-away ledger.
"""

import sys
from pathlib import Path

from PySide6.QtGui import QColor, QPalette
from workbench.gui.app import application

from workbench.gui import smoke
from workbench.gui.main_window import MainWindow


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, colour in ((QPalette.ColorRole.Window, "#2b2b2b"), (QPalette.ColorRole.WindowText, "#e8e8e8"),
                         (QPalette.ColorRole.Base, "#1e1e1e"), (QPalette.ColorRole.AlternateBase, "#2f2f2f"),
                         (QPalette.ColorRole.Text, "#e8e8e8"), (QPalette.ColorRole.Button, "#3a3a3a"),
                         (QPalette.ColorRole.ButtonText, "#e8e8e8"), (QPalette.ColorRole.Highlight, "#3d6fb4"),
                         (QPalette.ColorRole.HighlightedText, "#ffffff"), (QPalette.ColorRole.ToolTipBase, "#3a3a3a"),
                         (QPalette.ColorRole.ToolTipText, "#e8e8e8"), (QPalette.ColorRole.Link, "#8ab4f8"),
                         (QPalette.ColorRole.PlaceholderText, "#a0a0a0")):
        palette.setColor(role, QColor(colour))
    return palette


def main() -> None:
    out = Path(sys.argv[1])
    app = application()  # the collector in the GUI thread, as the app
    app.setStyle("Fusion")
    app.setPalette(dark_palette())
    font = app.font()
    font.setPointSizeF(font.pointSizeF() * 1.5)
    app.setFont(font)
    window = MainWindow()
    window.resize(1366, 768)
    window.show()
    app.processEvents()
    window.grab().save(str(out / "00-welcome.png"))
    shots = smoke.run(window, out)
    print("\n".join(str(path) for path in [out / "00-welcome.png", *shots]))


if __name__ == "__main__":
    main()
