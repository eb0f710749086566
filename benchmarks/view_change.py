"""One choice that changes one chart, two versions of the app, interleaved in one headless Chromium.

    python -m benchmarks.view_change --against REF [--length 48] [--repeats 12]

Two changes a learner makes over and over, on a text already shown (so its run is cached):
- Attention: another head in the "Head" box (the large view and the weight-is-not-influence chart follow it);
- Decode step by step: the → key, one step on;
- and, asked for by name (`--changes decode-same-step`), Decode's "⏮ First" at the first step: the fragment's
  run with nothing to change, what any step costs before its own drawing;
- `--changes decode-head`: another head on Decode step by step (its "Head" box), a fragment's run on the server.
With --words-before N, each page is first given N new words, as a learner who has been at it for a while sees
it (until 2026-11-28 every word left the head's charts one more listener, each drawing them on a pick).

Wall time from the choice (the head typed into its open box and Enter, or its radio button where the browser
switches heads; the → key) to the page settled: the URL shows the new value (the widget, or the browser's
code after drawing the new head, writes it), the
run (page or fragment) has finished, every chart has its drawing, and two animation frames have passed, so
what was sent has been painted. Both versions are served at once and take turns going first, as in
`benchmarks.browser_ab`; also printed: how many Plotly charts were drawn again (their SVG replaced). With
--one-tab-too, the working tree's server is also measured in a tab of its own with no other tab open, in rounds
taking turns with the two tabs, to see what the two-server set-up adds (`--against HEAD` on a clean tree: the
same code on all three).

Writes docs/records/view_change.json.
"""

from __future__ import annotations

import argparse
import functools
import random
import re
import statistics
import time

from benchmarks.record import write_record
from drivers.harness import ALL_CHARTS_DRAWN, PAINTED, SETTLED, open_page, run_mark, type_text, wait_for_run
from drivers.words import random_word

from .browser_ab import two_servers

MARK_CHARTS = """() => document.querySelectorAll("[data-testid='stPlotlyChart'] .js-plotly-plot").forEach(gd => {
    gd.dataset.plots = '0';
    if (!gd.dataset.listening) {
        gd.dataset.listening = '1';
        gd.on('plotly_afterplot', () => { gd.dataset.plots = String(+gd.dataset.plots + 1); });
    }
})"""
REDRAWN = """() => [...document.querySelectorAll("[data-testid='stPlotlyChart'] .js-plotly-plot")]
               .filter(gd => gd.dataset.plots !== '0').length"""


def url_has(page, name: str, value: str) -> None:
    page.wait_for_function("([n, v]) => new URL(location.href).searchParams.get(n) === v", arg=[name, value])


def settled(page) -> None:
    page.wait_for_selector(SETTLED, timeout=60_000)
    page.wait_for_function(ALL_CHARTS_DRAWN, timeout=60_000)
    page.evaluate(PAINTED)


def open_head_box(page, n_heads: int, repeat: int) -> tuple[str, bool]:
    """Open the "Head" box where the head is a Streamlit selectbox, not timed: the time a learner takes to pick is
    theirs. Where the head is picked in the browser (radio buttons, since issue 30) there is no box to open.
    Returns the head to pick, and whether it is a radio button."""
    head = str(1 + repeat % (n_heads - 1))      # 1, 2, 3, 1, …: never the default 0, which leaves the URL
    if page.get_by_role("radiogroup", name="Head").count():
        return head, True
    page.get_by_test_id("stMain").get_by_role("combobox", name=re.compile("^Head")).first.click()
    page.get_by_role("option", name=head, exact=True).wait_for()
    return head, False


def pick_head(page, picked: tuple[str, bool], repeat: int, param: str = "head") -> None:
    """The head typed into its open box and Enter, or its radio button; `param`: the URL's name for it."""
    head, radio = picked
    if radio:
        page.get_by_role("radio", name=head, exact=True).check()
    else:
        page.keyboard.type(head)
        page.keyboard.press("Enter")
    url_has(page, param, head)


def open_decode_head_box(page, n_heads: int, repeat: int) -> tuple[str, bool]:
    """Decode's "Head" box focused, not timed. Unlike Attention's before issue 30, its list does not show on the
    click (open_head_box waited 30 s for an option), but the typed head and Enter pick it (pick_head). Since
    2026-11-28 afternoon its fragment draws where the steps looked, and what they read and chose stays in place."""
    page.get_by_test_id("stMain").get_by_role("combobox", name=re.compile("^Head")).click()
    return str(1 + repeat % (n_heads - 1)), False


def next_step(page, _: None, repeat: int) -> None:
    page.keyboard.press("ArrowRight")
    url_has(page, "step", str(repeat + 1))


def first_step_again(page, _: None, repeat: int) -> None:
    """The first step asked for while it is shown: the fragment runs and sends its elements again, the same ones.
    What a step costs before it changes anything (Playwright's click adds its checks, a few ms)."""
    page.get_by_role("button", name="⏮ First").click()


def steps_on_server(page) -> bool:
    """Decode's steps drawn by a rerun of its fragment, as before 2026-11-28; since then the browser draws every step
    from one payload (explorer/components/front_end.js, its root of class "decode")."""
    return page.locator(".decode").count() == 0


# change -> (page, what is done before the clock starts, the timed choice, whether it makes the server run a script,
# given the page): another head on Attention is drawn in the browser (explorer.attention_view); another step on
# Decode reran a fragment, and the same step again reran it to draw what was already there (not among the default
# changes), until the browser drew the steps itself
CHANGES = {"attention-head": ("attention", open_head_box, pick_head, lambda page: False),
           "decode-step": ("decode", lambda page, n_heads, repeat: None, next_step, steps_on_server),
           "decode-same-step": ("decode", lambda page, n_heads, repeat: None, first_step_again, steps_on_server),
           "decode-head": ("decode", open_decode_head_box, functools.partial(pick_head, param="step_head"),
                           lambda page: True)}
DEFAULT_CHANGES = ("attention-head", "decode-step")


def measure(browser, servers: dict, change: str, length: int, repeats: int, words_before: int = 0
            ) -> tuple[dict, dict]:
    """`words_before`: new words typed into each page before the first change, as a learner who has been at it."""
    path, prepare, act, reruns = CHANGES[change]
    rng = random.Random(1)
    word = random_word(rng, length)
    before = [random_word(rng, length) for _ in range(words_before)]
    pages = {}
    for name, (_, port) in servers.items():
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        open_page(page, f"http://127.0.0.1:{port}/{path}?text={word}")
        for typed in before:
            type_text(page, typed)
        pages[name] = page
    wall = {name: [] for name in servers}
    redrawn = {name: [] for name in servers}
    for repeat in range(repeats):
        for name, page in (list(pages.items()) if repeat % 2 == 0 else list(pages.items())[::-1]):
            page.bring_to_front()
            page.evaluate("document.activeElement && document.activeElement.blur()")   # keys go to the page
            page.evaluate(MARK_CHARTS)
            ready = prepare(page, 4, repeat)
            runs = reruns(page)
            time.sleep(0.3)
            mark = run_mark(page)
            start_time = time.perf_counter()
            act(page, ready, repeat)
            if runs:     # the URL changes before the run starts (a widget bound to it): wait for the run's end
                wait_for_run(page, mark, kind="either")   # a fragment's run since issue 30
            else:        # drawn in the browser: nothing to wait for but the drawing
                settled(page)
            wall[name].append(time.perf_counter() - start_time)
            redrawn[name].append(page.evaluate(REDRAWN))
    for page in pages.values():
        page.context.close()
    return wall, redrawn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--against", required=True, help="a git ref to compare the working tree with")
    parser.add_argument("--length", type=int, default=48)
    parser.add_argument("--repeats", type=int, default=12)
    parser.add_argument("--changes", default=",".join(DEFAULT_CHANGES), help=f"of {', '.join(CHANGES)}")
    parser.add_argument("--words-before", type=int, default=0,
                        help="new words typed into each page before the changes are timed (the same in both)")
    parser.add_argument("--one-tab-too", action="store_true",
                        help="also time the working tree's server in a tab alone, in rounds between the two tabs'")
    args = parser.parse_args()
    results, alone = {}, {}
    with two_servers(args.against) as (browser, servers):
        for change in args.changes.split(","):
            if not args.one_tab_too:
                results[change] = measure(browser, servers, change, args.length, args.repeats, args.words_before)
                continue
            wall, redrawn = {name: [] for name in servers}, {name: [] for name in servers}
            alone[change] = []
            for _ in range(2):        # two rounds: the two tabs, then the working tree's tab alone
                both = measure(browser, servers, change, args.length, args.repeats // 2, args.words_before)
                for name in servers:
                    wall[name] += both[0][name]
                    redrawn[name] += both[1][name]
                one = {"working tree": servers["working tree"]}
                alone[change] += measure(browser, one, change, args.length, args.repeats // 2,
                                         args.words_before)[0]["working tree"]
            results[change] = (wall, redrawn)
    old, new = args.against, "working tree"
    print(f"{args.length} characters, medians of {args.repeats} interleaved changes (wall s; charts drawn again)"
          + (f", after {args.words_before} new words typed into each page" if args.words_before else ""))
    print(f"{'change':<16} {old[:10]:>10} {'new':>8} {'new/old':>8} {'quartiles':>11}   {'redrawn old':>11} "
          f"{'new':>5}")
    rows = []
    for change, (wall, redrawn) in results.items():
        w_old, w_new = statistics.median(wall[old]), statistics.median(wall[new])
        low, _, high = statistics.quantiles([n / o for n, o in zip(wall[new], wall[old])], n=4)
        print(f"{change:<16} {w_old:>10.3f} {w_new:>8.3f} {w_new / w_old:>8.2f} {low:>5.2f}–{high:<5.2f}   "
              f"{statistics.median(redrawn[old]):>11.0f} {statistics.median(redrawn[new]):>5.0f}")
        rows.append({"change": change, "against": old, "old s": round(w_old, 3), "new s": round(w_new, 3),
                     "new/old": round(w_new / w_old, 2), "quartiles": [round(low, 2), round(high, 2)],
                     "redrawn old": round(statistics.median(redrawn[old])),
                     "redrawn new": round(statistics.median(redrawn[new]))})
    figures = {"characters": args.length, "interleaved changes a median": args.repeats,
               "new words typed before": args.words_before, "rows": rows}
    for change, times in alone.items():
        print(f"{change:<16} the working tree in a tab alone: {statistics.median(times):.3f} s (median of "
              f"{len(times)}, in rounds between the two tabs')")
    if args.one_tab_too:
        figures["the working tree in a tab alone"] = [
            {"change": change, "median s": round(statistics.median(times), 3), "median of": len(times)}
            for change, times in alone.items()]
    write_record("view_change", figures)


if __name__ == "__main__":
    main()
