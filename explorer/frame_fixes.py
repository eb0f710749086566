"""Three mends to Streamlit's own elements, made in the browser by a component mounted once a run: icon names a
screen reader would read out, a data grid's type that missed projector mode, and metrics side by side whose values
a wrapped label put out of line.

The grid mend stays because its cause is outside the app: a data grid takes its type in px once, when it mounts,
from the root's size at that moment, and Streamlit 1.67 has no theme a session can switch. Remounting the grid
when projector mode changes was measured in Chromium: a new key left it at 14 px both ways; a new container
around it gave 14 px with projector mode on and 24.5 px with it off (the grid mounts before the new root style
applies). Only a zoom measured after the page is drawn follows the root."""

from __future__ import annotations

import streamlit as st


# Streamlit draws some of its own icons (an expander's chevron, the uploader's cloud) as a Material-font word, which a
# screen reader reads out ("keyboard_arrow_right How the next token is chosen"). Once per page, an observer marks
# every such icon aria-hidden as it appears: the picture stays, the word is not read. A button that has nothing but
# its icon and no name is named by the icon's words first (Streamlit 1.67 names the sidebar's own two itself:
# "Expand sidebar", "Collapse sidebar").
_FRAME_FIXES_JS = """export default function () {
  if (window.__frameFixes) return;
  window.__frameFixes = true;
  let queued = false;
  const hide = () => {
    document.querySelectorAll("[data-testid='stIconMaterial']:not([aria-hidden])").forEach((icon) => {
      const word = icon.textContent, button = icon.closest("button");
      if (button && !button.getAttribute("aria-label") && !button.textContent.replace(word, "").trim())
        button.setAttribute("aria-label", word.replace(/_/g, " "));
      icon.setAttribute("aria-hidden", "true");
    });
  };
  // A data grid measures its type once, in px, when it is first drawn: drawn before projector mode's larger root
  // arrived (or after it left), it keeps the other size. Zoomed by the ratio, its type follows the page's.
  const fitGrids = () => {
    const wanted = 0.875 * parseFloat(getComputedStyle(document.documentElement).fontSize);
    document.querySelectorAll("[data-testid='stDataFrame']").forEach((grid) => {
      const font = (e) => e.style.getPropertyValue("--gdg-base-font-style");      // "400 14px"
      const styled = [...grid.querySelectorAll("[style]")].find(font);
      const drawn = styled && parseFloat(font(styled).split(" ").pop());
      if (!drawn) return;
      const zoom = Math.abs(wanted / drawn - 1) < 0.05 ? "" : String(wanted / drawn);
      if (grid.style.zoom === zoom) return;
      grid.style.zoom = zoom;
      grid.style.maxWidth = zoom ? `calc(100% / ${zoom})` : "";    // zoomed, still no wider than its column
    });
  };
  // Metrics side by side: a label that wraps onto a second line pushed its value below its neighbours' (Training's
  // four, Inside one head's three at 1,024 px). Every label of a row gets the height of the row's tallest; a label's
  // text is watched for a new size too (the sidebar folded, a font loaded, a new label), which adds no element.
  const sized = new ResizeObserver(() => queue());
  const alignMetrics = () => {
    document.querySelectorAll("[data-testid='stHorizontalBlock']").forEach((block) => {
      const labels = [...block.querySelectorAll("[data-testid='stMetricLabel']")]
        .filter((label) => label.closest("[data-testid='stHorizontalBlock']") === block);   // a nested row: its own
      labels.forEach((label) => {
        label.style.minHeight = "";
        if (label.firstElementChild) sized.observe(label.firstElementChild);   // its text, not the height set here
      });
      if (labels.length < 2) return;
      const rows = new Map();                          // a row: labels whose tops agree (stacked ones do not)
      labels.forEach((label) => {
        const top = Math.round(label.getBoundingClientRect().top);
        const row = [...rows.keys()].find((t) => Math.abs(t - top) <= 2) ?? top;
        rows.set(row, [...(rows.get(row) || []), label]);
      });
      rows.forEach((row) => {
        if (row.length < 2) return;
        const tallest = Math.max(...row.map((label) => label.getBoundingClientRect().height));
        row.forEach((label) => { label.style.minHeight = `${tallest}px`; });
      });
    });
  };
  const all = () => { queued = false; hide(); fitGrids(); alignMetrics(); };
  function queue() { if (!queued) { queued = true; requestAnimationFrame(all); } }
  all();
  new MutationObserver(queue).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", queue);        // a narrower window wraps other labels
}"""


def frame_fixes() -> None:
    """Mounted once a run, in the sidebar: the observer is installed once a page and keeps watching."""
    st.components.v2.component("frame_fixes", js=_FRAME_FIXES_JS, html="<span></span>")(key="frame_fixes")
