"""axe-core over every page, for the accessibility figures of docs/learners-tour.md:

    python -m scripts.accessibility_survey [--pages attention,masks] [--projector] [--whole]

One server, one Chromium; each page opened with a word typed in its link, at 1400×1000 (or 1280×720 in projector
mode), and axe-core's WCAG 2.1 A and AA rules run over the app's own content (the page and the sidebar's widgets;
with --whole, Streamlit's frame too). Prints each page's violations by rule and the totals.
"""

from __future__ import annotations

import argparse
from collections import Counter

from playwright.sync_api import sync_playwright

from drivers.axe import violations
from drivers.harness import CHROMIUM, CHROMIUM_ARGS, load, start_server, stop_server
from explorer.pages import PAGES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", help="page ids, comma-separated (default: every page)")
    parser.add_argument("--projector", action="store_true")
    parser.add_argument("--whole", action="store_true", help="the whole document, Streamlit's frame included")
    args = parser.parse_args()
    chosen = [p for p in PAGES if not args.pages or p.id in args.pages.split(",")]
    process, url = start_server("accessibility_survey.log")
    totals, serious_nodes = Counter(), 0
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            size = {"width": 1280, "height": 720} if args.projector else {"width": 1400, "height": 1000}
            for page_row in chosen:
                page = browser.new_context(viewport=size, reduced_motion="reduce").new_page()
                query = "text=level" + ("&projector=true" if args.projector else "")
                load(page, f"{url}/{page_row.url_path}?{query}", timeout=180_000)
                found = violations(page, {"include": [["html"]]}) if args.whole else violations(page)
                nodes = sum(len(v["nodes"]) for v in found)
                print(f"{page_row.id:26} {nodes:4d} nodes  " + ", ".join(
                    f"{v['id']} ({v['impact']}) ×{len(v['nodes'])}" for v in found))
                for v in found:
                    totals[(v["id"], v["impact"])] += len(v["nodes"])
                    serious_nodes += len(v["nodes"]) if v["impact"] in ("serious", "critical") else 0
                page.context.close()
            browser.close()
    finally:
        stop_server(process)
    print(f"\n{sum(totals.values())} failing nodes on {len(chosen)} pages, {serious_nodes} serious or critical:")
    for (rule, impact), n in totals.most_common():
        print(f"  {rule} ({impact}): {n}")


if __name__ == "__main__":
    main()
