"""The report as one self-contained HTML file: Jinja2 template, pictures embedded as data URIs,
no external resource, so it opens offline and can be mailed as one file."""

from __future__ import annotations

import base64

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from workbench.core.report.model import Report

_environment = Environment(
    loader=PackageLoader("workbench", "resources"),
    autoescape=select_autoescape(["html", "j2"]),
    undefined=StrictUndefined,
    keep_trailing_newline=True,
)
_environment.filters["b64"] = lambda data: base64.b64encode(data).decode("ascii")


def render_html(report: Report) -> str:
    return _environment.get_template("report.html.j2").render(report=report)
