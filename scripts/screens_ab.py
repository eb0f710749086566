"""Every page of two versions of the app, photographed side by side on a phone, a projector and a small screen:
did a change move anything a learner sees? Without --against, the working tree's pages alone, to look at.

    python -m scripts.screens_ab [--against 6fc6c98] [--text hello] [--pages attention,masks]
                                 [--sizes phone,1024] [--words]

The other version is checked out with `git worktree` into a temporary folder; both servers run at once and
each page is opened in each with the same text, at 390×844 (a phone), 1280×720 and 1024×768 in projector mode,
and 1024×768 as a small laptop (1400×1000, "wide", if asked). Writes, in artifacts/screens_ab/, each page's two
full-page screenshots side by side (before left, after right) and prints, per page and size, the two heights and
the share of pixels that differ where the two overlap: a page the change did not touch prints 0.0 %, so only the
others need a look.
With --words, it also writes each page's words (the visible text of its main block, charts' own SVG text left
out) for both versions and prints how many lines only one version shows (as sets: a moved line is the same line):
pixels can move while every word and number a learner reads stays the same.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from PIL import Image
from playwright.sync_api import sync_playwright

from drivers.harness import CHROMIUM, CHROMIUM_ARGS, ROOT, load, start_server, stop_server
from drivers.versions import served_pair
from explorer.pages import PAGES

# name -> (width, height, projector mode)
SIZES = {"wide": (1400, 1000, False), "phone": (390, 844, False), "projector": (1280, 720, True),
         "projector-1024": (1024, 768, True), "1024": (1024, 768, False)}
OUT = ROOT / "artifacts" / "screens_ab"
MAIN = "[data-testid='stMain']"
# The main block's visible text, then each component's (st.components.v2 draws in a shadow DOM, which the
# block's innerText does not reach), without what a chart library draws as text (a Plotly chart's SVG ticks and
# labels, which a canvas chart draws as pixels) or KaTeX's hidden MathML copy of each formula.
COMPONENT = "\n--- a component ---\n"
WORDS = f"""() => {{
    const main = document.querySelector("{MAIN}");
    const hosts = [...main.querySelectorAll("*")].filter(element => element.shadowRoot);
    for (const root of [main, ...hosts.map(host => host.shadowRoot)])
        root.querySelectorAll("svg, .katex-mathml").forEach(element => element.style.setProperty("display", "none"));
    const parts = hosts.map(host => [...host.shadowRoot.children].filter(child => child.localName !== "style")
                                    .map(child => child.innerText).join("\\n"));
    return [main.innerText, ...parts].join({json.dumps(COMPONENT)});
}}"""
MAIN_HEIGHT = f"document.querySelector(\"{MAIN}\").scrollHeight"


def photograph(browser, address: str, path: str, text: str, size: tuple[int, int, bool], file: Path) -> Image.Image:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, reduced_motion="reduce")
    page = context.new_page()
    load(page, f"{address}/{path}?text={text}" + ("&projector=true" if size[2] else ""),
         timeout=180_000)
    # Streamlit scrolls inside its main block, not the document: the whole page is photographed by making the
    # window as tall as that block's content (at most 16,000 px) at the size's own width, once that height has
    # stopped changing (a late table or a chart redrawn to the new window moves it).
    height = size[1]
    for _ in range(10):
        page.wait_for_timeout(1_500)
        tall = max(size[1], min(page.evaluate(MAIN_HEIGHT), 16_000))
        if tall == height:
            break
        height = tall
        page.set_viewport_size({"width": size[0], "height": height})
    page.screenshot(path=str(file), animations="disabled")
    file.with_suffix(".txt").write_text(page.evaluate(WORDS))
    context.close()
    return Image.open(file).convert("RGB")


def differing_share(a: Image.Image, b: Image.Image) -> float:
    """Share of pixels, over the rows both images have, whose colour differs by more than a rounding."""
    width, height = min(a.width, b.width), min(a.height, b.height)
    x = np.asarray(a.crop((0, 0, width, height)), dtype=np.int16)
    y = np.asarray(b.crop((0, 0, width, height)), dtype=np.int16)
    return float((np.abs(x - y).max(axis=-1) > 8).mean())


def page_lines(file: Path) -> Counter[str]:
    """A page's words as a set of lines (with their counts), spaces evened out and empty lines dropped."""
    lines = (re.sub(r"\s+", " ", line.replace("\u200b", "")).strip() for line in file.read_text().splitlines())
    return Counter(line for line in lines if line and line != COMPONENT.strip())


def side_by_side(a: Image.Image, b: Image.Image) -> Image.Image:
    pair = Image.new("RGB", (a.width + b.width + 12, max(a.height, b.height)), (255, 0, 255))
    pair.paste(a, (0, 0))
    pair.paste(b, (a.width + 12, 0))
    return pair


@contextlib.contextmanager
def served(against: str | None) -> Iterator[dict[str, str]]:
    """name -> address: "before" (`against`, in a worktree) and "after" (the working tree), or "after" alone."""
    if against:
        with served_pair(against) as pair:
            yield {name: f"http://127.0.0.1:{pair[ref][1]}" for name, ref in (("before", against),
                                                                              ("after", "working tree"))}
        return
    process, url = start_server("screens_ab.log")
    try:
        yield {"after": url}
    finally:
        stop_server(process)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="the version before (a commit); without it, the working tree alone")
    parser.add_argument("--text", default="hello")
    parser.add_argument("--pages", help="page ids, comma-separated (default: every page of the registry)")
    parser.add_argument("--sizes", help=f"comma-separated, of {', '.join(SIZES)} (default: all but wide)")
    parser.add_argument("--words", action="store_true",
                        help="also write each page's words for both versions and count the lines only one shows")
    args = parser.parse_args()
    chosen = [p for p in PAGES if not args.pages or p.id in args.pages.split(",")]
    sizes = {name: size for name, size in SIZES.items()
             if (name in args.sizes.split(",") if args.sizes else name != "wide")}
    OUT.mkdir(parents=True, exist_ok=True)
    with served(args.against) as servers, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        print(f"{'page':<18} {'size':<15} {'height before':>13} {'after':>6} {'differ':>7}"
              + (f" {'lines only before':>17} {'only after':>10}" if args.words and args.against else ""))
        for page in chosen:
            for size_name, size in sizes.items():
                shots = {name: photograph(browser, address, page.url_path, args.text, size,
                                          OUT / f"{page.id}-{size_name}-{name}.png")
                         for name, address in servers.items()}
                words = {name: OUT / f"{page.id}-{size_name}-{name}.txt" for name in servers}
                if not args.words:
                    for file in words.values():
                        file.unlink()
                if not args.against:
                    (OUT / f"{page.id}-{size_name}-after.png").rename(OUT / f"{page.id}-{size_name}.png")
                    if args.words:
                        words["after"].rename(OUT / f"{page.id}-{size_name}.txt")
                    print(f"{page.id:<18} {size_name:<15} {'':>13} {shots['after'].height:>6}", flush=True)
                    continue
                side_by_side(shots["before"], shots["after"]).save(OUT / f"{page.id}-{size_name}.png")
                for name in servers:
                    (OUT / f"{page.id}-{size_name}-{name}.png").unlink()
                share = differing_share(shots["before"], shots["after"])
                lines = ""
                if args.words:
                    before, after = page_lines(words["before"]), page_lines(words["after"])
                    lines = f" {(before - after).total():>17} {(after - before).total():>10}"
                print(f"{page.id:<18} {size_name:<15} {shots['before'].height:>13} "
                      f"{shots['after'].height:>6} {share:>6.1%}{lines}", flush=True)
        browser.close()


if __name__ == "__main__":
    main()
