"""Sentences, a page link and a download button as HTML, for the charts that switch views in the browser
(explorer.components.switched_heatmaps): each view brings its own words, so they cannot be Streamlit elements.
Every text is escaped here."""

from __future__ import annotations

import html
import re

_BOLD = re.compile(r"\*\*(.+?)\*\*")


def paragraph(text: str) -> str:
    """One sentence or more whose only markdown is **bold**, as the page models write them."""
    return "<p>" + _BOLD.sub(r"<strong>\1</strong>", html.escape(text, quote=False)) + "</p>"


def page_link(href: str, label: str, icon: str) -> str:
    """A link to another page of the app (a relative href, so a base path is kept); a plain click stays in the
    session (explorer/components/front_end.js), a middle click opens the page afresh."""
    return (f'<p><a class="page-link" href="{html.escape(href)}"><span aria-hidden="true">{html.escape(icon)}</span> '
            f"{html.escape(label)}</a></p>")


def download_button(label: str, file_name: str) -> str:
    """A button that saves the view's CSV (the component holds it) as `file_name`."""
    return f'<p><button type="button" class="download" data-file="{html.escape(file_name)}">{html.escape(label)}</button></p>'
