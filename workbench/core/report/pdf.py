"""The report as PDF, laid out by ReportLab from the same model as the HTML.

ReportLab is pure Python (it installs and packages everywhere without system libraries),
and with a TrueType font it embeds the subset of glyphs used, so the PDF reads the same on
every machine. The font is DejaVu Sans, which matplotlib ships (Greek letters for ε and δ).
Every page carries "page n of N" (a second pass over the canvas once N is known).
"""

from __future__ import annotations

import io
from pathlib import Path
from xml.sax.saxutils import escape

import matplotlib
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, LETTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas
from reportlab.platypus import Image, KeepTogether, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from workbench.core.report.figures import DPI
from workbench.core.report.model import Picture, Report

PAPERS = {"a4": A4, "letter": LETTER}
FONT, BOLD = "DejaVuSans", "DejaVuSans-Bold"


def _register_fonts() -> None:
    if FONT in pdfmetrics.getRegisteredFontNames():
        return
    folder = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    pdfmetrics.registerFont(TTFont(FONT, str(folder / "DejaVuSans.ttf")))
    pdfmetrics.registerFont(TTFont(BOLD, str(folder / "DejaVuSans-Bold.ttf")))
    pdfmetrics.registerFontFamily(FONT, normal=FONT, bold=BOLD, italic=FONT, boldItalic=BOLD)


def _styles() -> dict[str, ParagraphStyle]:
    base = ParagraphStyle("body", fontName=FONT, fontSize=9.5, leading=13, spaceAfter=4)
    return {
        "body": base,
        "small": ParagraphStyle("small", parent=base, fontSize=8, leading=10.5, textColor=colors.HexColor("#333333")),
        "title": ParagraphStyle("title", parent=base, fontName=BOLD, fontSize=17, leading=21, spaceAfter=6),
        "h2": ParagraphStyle("h2", parent=base, fontName=BOLD, fontSize=12.5, leading=16, spaceBefore=10, spaceAfter=5),
        "h3": ParagraphStyle("h3", parent=base, fontName=BOLD, fontSize=10.5, leading=14, spaceBefore=8, spaceAfter=3),
        "cell": ParagraphStyle("cell", parent=base, fontSize=8, leading=10, spaceAfter=0),
        "box": ParagraphStyle("box", parent=base, backColor=colors.HexColor("#eef4fb"), borderPadding=5,
                              borderColor=colors.HexColor("#1f5fa8"), borderWidth=0, spaceBefore=4, spaceAfter=8),
    }


class _NumberedCanvas(canvas.Canvas):
    """Holds the pages until the end, then writes 'page n of N' on each."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs["initialFontName"] = FONT  # else every page names Helvetica, which is not embedded
        super().__init__(*args, **kwargs)
        self._pages: list[dict] = []

    def showPage(self) -> None:  # noqa: N802 (ReportLab's name)
        self._pages.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        total = len(self._pages)
        for state in self._pages:
            self.__dict__.update(state)
            width, _ = self._pagesize
            self.setFont(FONT, 8)
            self.setFillColor(colors.HexColor("#555555"))
            self.drawCentredString(width / 2, 10 * mm, f"Page {self._pageNumber} of {total}")
            super().showPage()
        super().save()


def render_pdf(report: Report, paper: str = "a4") -> bytes:
    """The report as PDF bytes on A4 or US Letter paper."""
    if paper.lower() not in PAPERS:
        raise ValueError(f"paper must be one of {sorted(PAPERS)}, not {paper!r}")
    _register_fonts()
    styles = _styles()
    buffer = io.BytesIO()
    page = PAPERS[paper.lower()]
    document = SimpleDocTemplate(
        buffer, pagesize=page, leftMargin=18 * mm, rightMargin=18 * mm, topMargin=16 * mm, bottomMargin=18 * mm,
        title=f"{report.title} — differentially private release", author=report.software, creator=report.software,
        subject="Differentially private release",
    )
    width = page[0] - 36 * mm
    story: list = []
    p = lambda text, style="body": Paragraph(escape(text), styles[style])  # noqa: E731

    story.append(p(report.title, "title"))
    story.append(p(f"Differentially private release of “{report.dataset}”, {report.created}, made with {report.software}.", "small"))
    if report.description:
        story.append(p(report.description))
    guarantee = (
        f"<b>Privacy guarantee:</b> ({report.total.epsilon:.4g}, {report.total.delta:.3g})-differential privacy for "
        f"each privacy unit: {escape(report.privacy_unit)}. Two datasets count as neighbours when "
        f"{escape(report.neighbouring)}."
    )
    story.append(Paragraph(guarantee, styles["box"]))
    for line in report.budget_lines + report.sampling_lines:
        story.append(p(line, "small"))

    story.append(p("What this guarantee means", "h2"))
    for line in report.reading:
        story.append(Paragraph("• " + escape(line), styles["body"]))
    story.append(_figure(report.profile, width, styles))

    story.append(p("Released statistics", "h2"))
    story.append(p(f"“±” is the half-width of an interval that holds the noise with {report.confidence:.0%} probability.", "small"))
    for section in report.statistics:
        headers = ("Cell", "Released value", f"Error ({report.confidence:.0%})", "Reliability", "Note")
        rows = [[Paragraph(f"<b>{h}</b>", styles["cell"]) for h in headers]]
        rows += [
            [Paragraph(escape(text), styles["cell"]) for text in (r.cell, r.value, r.error, one_line(r.reliability), r.note)]
            for r in section.rows
        ]
        table = Table(rows, colWidths=column_widths(width, [r.reliability for r in section.rows]), repeatRows=1)
        table.setStyle(TableStyle([
            ("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#bbbbbb")),
            ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#f0f0f0")),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("FONTNAME", (0, 0), (-1, -1), FONT),  # the default, Helvetica, would be named though unused
        ]))
        heading = [p(section.label, "h3")] + ([p(section.columns, "small")] if section.columns else [])
        story.append(KeepTogether([*heading, table]))
        if section.folded:
            story.append(p(section.folded, "small"))
        details = f"ε = {section.epsilon:.4g}, δ = {section.delta:.3g}; {section.mechanism}; {section.noise}. {section.method}"
        story.append(p(details, "small"))
        if section.post_processing:
            story.append(p("Post-processing: " + " ".join(section.post_processing), "small"))
        if section.quality:
            story.append(p("Quality of the synthetic table", "h3"))
            story.extend(p(line, "small") for line in section.quality)
        for picture in section.pictures:
            story.append(_figure(picture, width, styles))

    story.append(p("Method", "h2"))
    story.extend(p(line) for line in report.methodology)
    story.append(p("What the guarantee does not cover", "h2"))
    story.extend(Paragraph("• " + escape(line), styles["body"]) for line in report.not_covered)
    story.append(p("References", "h2"))
    story.extend(p(f"{i}. {line}", "small") for i, line in enumerate(report.references, 1))

    document.build(story, canvasmaker=_NumberedCanvas)
    return buffer.getvalue()


CELL_PADDING = 12  # points: a table cell's left and right padding (6 each, ReportLab's default) and a margin


def one_line(text: str) -> str:
    """A reliability ("use with caution (CV 21%)") that wraps, if at all, only between its flag and its CV."""
    flag, _, cv = text.partition(" (")
    return f"{flag} ({cv.replace(' ', NBSP)}" if cv else text


NBSP = "\u00a0"


def column_widths(width: float, reliabilities: list[str]) -> list[float]:
    """Cell, value, error, reliability and note: the reliability column as wide as its longest text on one line
    (it wrapped "reliable (CV / 4.3%)"), at least 16% of the width; the note column gives up the difference."""
    longest = max((pdfmetrics.stringWidth(text, FONT, 8) for text in reliabilities), default=0.0) + CELL_PADDING
    reliability = min(max(0.16 * width, longest), 0.3 * width)
    return [0.22 * width, 0.15 * width, 0.15 * width, reliability, 0.48 * width - reliability]


def _figure(picture: Picture, width: float, styles: dict[str, ParagraphStyle]) -> KeepTogether:
    image = Image(io.BytesIO(picture.png))
    natural = 72.0 / DPI  # points per pixel at the resolution the figure was drawn
    scale = min(natural, width / image.imageWidth, (95 * mm) / image.imageHeight)
    image.drawWidth, image.drawHeight = image.imageWidth * scale, image.imageHeight * scale
    return KeepTogether([Spacer(1, 3), image, Paragraph(escape(picture.caption), styles["small"]), Spacer(1, 4)])
