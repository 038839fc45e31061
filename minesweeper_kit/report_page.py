"""What every self-contained report page shares: the style sheet, escaping, tables and inline plots.

The tournament's page (`tournament.page`) and the grader's batch report are built from these. A
page must open from a file, with no server and no network: the plots are matplotlib figures
inlined as SVG (ids prefixed so several figures can live in one document), the style sheet is
inline, and there is no script. matplotlib is the ``report`` extra: ``pip install
minesweeper-kit[report]``.
"""

from __future__ import annotations

import html
import io
import re
from typing import Any

__all__ = ["esc", "require_matplotlib", "new_figure", "figure_svg", "html_page", "table"]

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1200px;
       padding: 0 1rem; color: #1d232a; line-height: 1.45; }
h1 { margin-bottom: .2rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #d8dee4; padding-bottom: .2rem; }
table { border-collapse: collapse; margin: .8rem 0; font-size: .9rem; }
th, td { border: 1px solid #d8dee4; padding: .25rem .5rem; text-align: right; vertical-align: top; }
th { background: #f3f5f7; } td.text, th.text { text-align: left; }
tbody tr:nth-child(even) { background: #fafbfc; }
.muted { color: #5c6670; } .bad { color: #b42318; } .good { color: #067647; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; }
figcaption { color: #5c6670; font-size: .9rem; }
details { margin: .6rem 0; } summary { cursor: pointer; font-weight: 600; }
pre { white-space: pre-wrap; background: #f6f8fa; padding: .5rem; font-size: .8rem; max-width: 100%; }
.grid { display: flex; flex-wrap: wrap; gap: 1rem; } .grid figure { flex: 1 1 420px; }
"""


def esc(value: Any) -> str:
    """`value` as text safe inside HTML, attributes included (bot names and messages are untrusted)."""
    return html.escape(str(value), quote=True)


def require_matplotlib() -> Any:
    """The matplotlib module; a RuntimeError naming the extra to install when it is missing."""
    try:
        import matplotlib
    except ModuleNotFoundError:
        raise RuntimeError(
            "the report pages draw their plots with matplotlib: "
            "pip install 'minesweeper-kit[report]' (or pip install matplotlib)"
        ) from None
    return matplotlib


def new_figure(width: float, height: float) -> Any:
    """A matplotlib Figure not tied to pyplot's global state (safe in any process)."""
    require_matplotlib()
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def figure_svg(fig: Any, name: str, label: str) -> str:
    """The figure as inline SVG: no XML prologue, ids prefixed by ``name``, an accessible label."""
    matplotlib = require_matplotlib()
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": name}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)  # RDF boilerplate only
    prefix = re.sub(r"[^\w-]", "-", name)
    text = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}-{m.group(1)}"', text)
    text = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}-{m.group(1)}"', text)
    text = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}-{m.group(1)})", text)
    return text.replace(
        "<svg ", f'<svg role="img" aria-label="{esc(label)}" class="plot" data-plot="{esc(prefix)}" ', 1
    )


def html_page(title: str, body: str) -> str:
    """A complete HTML document with the shared inline style."""
    return (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def table(
    head: list[str], rows: list[list[Any]], table_id: str, text_columns: tuple[int, ...] = (0,), raw: bool = False
) -> str:
    """An HTML table; cells are escaped unless ``raw`` (then they are trusted HTML fragments)."""

    def cell(tag: str, index: int, value: Any) -> str:
        css = ' class="text"' if index in text_columns else ""
        return f"<{tag}{css}>{value if raw else esc(value)}</{tag}>"

    head_html = "".join(cell("th", i, esc(h)) if raw else cell("th", i, h) for i, h in enumerate(head))
    body = "\n".join("<tr>" + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>" for row in rows)
    return f'<table id="{esc(table_id)}">\n<thead><tr>{head_html}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>'
