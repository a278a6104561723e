"""What a release publishes: the report model, HTML, PDF, figures, exports, the number formatter.
May import every core layer before it; reads only released values and public context."""

from workbench.core.report.export import PAPER_SIZES, REPORT_FORMATS, write_report, write_results
from workbench.core.report.numbers import released_error, released_number

__all__ = [
    "PAPER_SIZES", "released_error", "released_number", "REPORT_FORMATS", "write_report", "write_results",
]
