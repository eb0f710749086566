"""axe-core (the npm package, pinned in package-lock.json) run inside a page in Chromium: the WCAG 2.1 A and AA
rules over the app's own content, the page body and the sidebar's widgets, not Streamlit's frame around them
(its header and the router's page list, which the app does not write)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
OWN_CONTENT = {"include": [["[data-testid='stMain']"], ["[data-testid='stSidebarUserContent']"]]}
RULES = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}, "resultTypes": ["violations"]}
SERIOUS = ("serious", "critical")
# WCAG 1.4.3 exempts the text of an inactive control: a disabled widget's label is drawn faint on purpose, and axe
# cannot tell it belongs to one (Streamlit's label is not the input's <label>), so those nodes are set aside.
INACTIVE = """t => { const e = document.querySelector(t);
    const widget = e && e.closest("[data-testid='stWidgetLabel']")?.parentElement;
    return !!widget && !!widget.querySelector("input:disabled, button:disabled, [aria-disabled='true']"); }"""


def violations(page, context: dict = OWN_CONTENT) -> list[dict]:
    """Every rule the page's own content breaks: {id, impact, help, nodes: [{target, summary}]}."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate("([context, rules]) => axe.run(context, rules).then(r => r.violations)", [context, RULES])
    kept = []
    for v in found:
        nodes = [{"target": n["target"], "summary": n.get("failureSummary", "")} for n in v["nodes"]
                 if not (v["id"] == "color-contrast" and _inactive(page, n["target"]))]
        if nodes:
            kept.append({"id": v["id"], "impact": v["impact"], "help": v["help"], "nodes": nodes})
    return kept


def _inactive(page, target: list) -> bool:
    """Whether the node is a disabled widget's label (a target in a shadow root is a list: never one)."""
    return isinstance(target[-1], str) and len(target) == 1 and page.evaluate(INACTIVE, target[-1])


def serious(found: list[dict]) -> list[dict]:
    return [v for v in found if v["impact"] in SERIOUS]


def described(found: list[dict]) -> str:
    """One line a rule and one a node, for a failing test's message."""
    return "\n".join(f"{v['impact']} {v['id']} ({v['help']}), {len(v['nodes'])} nodes:\n" + "\n".join(
        f"    {n['target']}: {n['summary'].splitlines()[-1] if n['summary'] else ''}" for n in v["nodes"][:6])
        for v in found)


# Each element's text contrast as drawn: its computed colour on its computed background (WCAG 2.1's formula), for
# coloured cells whose type is chosen per cell, which axe only checks where the numbers fall on a failing colour.
CELL_CONTRASTS = """cells => cells.map(cell => {
    const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
    const lum = (c) => { const [r, g, b] = rgb(c).map(x => { x /= 255;
        return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    const style = getComputedStyle(cell), a = lum(style.color), b = lum(style.backgroundColor);
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); })"""
