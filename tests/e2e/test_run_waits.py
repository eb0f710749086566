"""The browser tests and benchmarks wait for a run by counting the ends the page's Streamlit code reads
(drivers.harness.RUN_MARK). A wait that ends early makes every browser figure too small and every check racy."""

from __future__ import annotations

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from drivers.harness import RUN_MARK, open_page, run_mark, type_text


def forward_msg(status: int | None) -> list[int]:
    """A ForwardMsg's bytes: a run's end with `status`, or (None) a delta drawing a markdown element."""
    msg = ForwardMsg()
    msg.metadata.delta_path[:] = [0, 1]          # a length-delimited field before the status, as the server sends
    if status is None:
        msg.delta.new_element.markdown.body = "a delta"
    else:
        msg.script_finished = status
    return list(msg.SerializeToString())


def test_run_mark_counts_each_kind_of_end(browser):
    """Messages from a websocket, read as Streamlit reads them: a whole run's end, a fragment's, a run stopped for a
    rerun (no end) and a delta (no end) give [whole, fragment, either] = [2, 1, 3]."""
    page = browser.new_page()
    try:
        page.goto("about:blank")
        assert page.evaluate(RUN_MARK) == [0, 0, 0]
        messages = [forward_msg(ForwardMsg.FINISHED_SUCCESSFULLY),
                    forward_msg(ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY),
                    forward_msg(ForwardMsg.FINISHED_EARLY_FOR_RERUN), forward_msg(None),
                    forward_msg(ForwardMsg.FINISHED_WITH_COMPILE_ERROR)]
        page.evaluate("""messages => {
            const socket = new WebSocket('ws://127.0.0.1:9');        // never connects: only the events' target
            socket.addEventListener('message', event => event.data);   // a handler reads the data, as Streamlit's
            for (const m of messages) {
                socket.dispatchEvent(new MessageEvent('message', {data: new Uint8Array(m).buffer}));
            }
        }""", messages)
        assert page.evaluate(RUN_MARK) == [2, 1, 3]
    finally:
        page.close()


def test_type_text_returns_once_the_run_has_drawn(server, page):
    """On a long page, each new word: when type_text returns, exactly one more run has ended and the sidebar already
    shows the word reversed (no waiting here). Before the count, 1 wait in 6 returned before the run began."""
    open_page(page, f"{server}/inside-one-head?text=hello")     # counting from the document's start
    for word in ("runsend", "thenitdraws", "everychart"):
        before = run_mark(page)
        type_text(page, word)
        after = run_mark(page)
        assert after[0] == before[0] + 1
        assert word[::-1] in page.get_by_test_id("stSidebar").inner_text()
        assert page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").count() == 1
