"""The Training page's own task: a rule typed and checked as it is typed, a rule found from examples (and the
question that tells fitting rules apart), and a Greek rule trained with the quick recipe, then walked on Home,
Decode, Attention, Which head does the work? and the lesson, each sentence recomputed another way."""

import time

import pytest
import torch

from explorer.own_models import OWN_MODEL_KEY
from transformer.data import target
from transformer.decoding import greedy_batch
from transformer.metrics import pattern_share
from transformer.task_rules import parse_rule

from .helpers import decode_sentences, no_exception, open_page, own_shelf

GREEK = "αβγδεζηθικλμνξοπρστυφχψω"


def start_button(at):
    return next(b for b in at.button if b.label == "Start training")


def test_a_typed_rule_is_checked_and_shown_on_texts_of_its_own_alphabet():
    at = open_page("training", "hello")
    at.text_input(key="own_rule").set_value("rotate:2|spin").run()
    no_exception(at)
    assert any("part 2 ('spin') is not an operation" in e.value.replace("\\", "") for e in at.error)
    assert start_button(at).disabled
    at.text_input(key="own_rule").set_value("rotate:2|shift:1").run()
    at.text_input(key="own_alphabet").set_value(GREEK).run()
    no_exception(at)
    assert not start_button(at).disabled
    example = next(c.value for c in at.caption if c.value.startswith("For example: "))
    pairs = [p.split(" → ") for p in example.removeprefix("For example: ").split(";  ")]
    assert len(pairs) == 3 and all(set(t) <= set(" " + GREEK) for t, _ in pairs)
    assert all(answer == target(text, "rotate:2|shift:1", GREEK) for text, answer in pairs)
    at.text_input(key="own_lengths").set_value("1-30").run()
    assert any("12 characters at most" in e.value for e in at.error) and start_button(at).disabled


def test_five_examples_find_swap_pairs_and_using_it_fills_the_rule():
    at = open_page("training", "hello")
    next(b for b in at.button if b.key == "own_find").click().run()     # the examples it opens with
    no_exception(at)
    assert any("One rule fits all 5 pairs: **swap-pairs**" in m.value for m in at.markdown)
    next(b for b in at.button if b.key == "own_use_found").click().run()
    assert at.text_input(key="own_rule").value == "swap-pairs"


def test_when_rules_disagree_the_page_asks_and_the_answer_narrows_them_to_one():
    truth = parse_rule("rotate:2")
    at = open_page("training", "hello")
    at.text_area(key="own_pairs").set_value("abcd -> cdab\nwxyz -> yzwx\nqrst -> stqr").run()
    next(b for b in at.button if b.key == "own_find").click().run()
    for _ in range(6):
        asked = [m.value for m in at.markdown if "They part on **" in m.value]
        if not asked:
            break
        question = asked[0].split("They part on **")[1].split("**")[0]
        at.text_input(key="own_answer").set_value(truth.apply(question)).run()
        next(b for b in at.button if b.key == "own_add_pair").click().run()
        no_exception(at)
    found = next(m.value for m in at.markdown if "One rule fits all" in m.value)
    rule = parse_rule(found.split("**")[1])
    assert all(rule.apply(t) == truth.apply(t) for t in ("a", "ab", "abc", "abcde", "abcdefg", "abcdefghijk"))


def wait_until_done(run, seconds=240):
    deadline = time.monotonic() + seconds   # a guard against a hung thread, not a speed requirement
    while not run.progress.done and time.monotonic() < deadline:
        time.sleep(0.2)
    assert run.progress.done, run.progress


@pytest.mark.slow   # a real run of up to a minute, then five pages
def test_a_greek_rule_trained_with_the_quick_recipe_is_what_every_page_speaks_of():
    task = "rotate:2"
    at = open_page("training", "hello")
    at.text_input(key="own_rule").set_value(task).run()
    at.text_input(key="own_alphabet").set_value(GREEK).run()
    at.text_input(key="own_lengths").set_value("2-5").run()
    start_button(at).click().run()
    no_exception(at)
    run = own_shelf(at).live_run
    try:
        wait_until_done(run)
    finally:
        run.stop.set()
    at.run()
    p = run.progress
    assert p.status == "finished" and p.task == task and run.settings.alphabet == GREEK
    assert run.settings.decoder_layers == 1 and run.settings.target == 0.99      # the quick recipe's
    success = at.success[0].value
    assert (f"Reached 99% held-out exact match on two checks in a row after {p.step:,} steps" in success
            if p.reached else "Stopped after the 60 s" in success)
    next(b for b in at.button if b.key == "live_use").click().run()
    no_exception(at)
    text = at.session_state["text"]                    # "hello" is not Greek: the page put a text of the task's
    assert set(text) <= set(" " + GREEK) and 2 <= len(text) <= 5
    state = {k: at.session_state[k] for k in ("_session_token", "_own_models", OWN_MODEL_KEY, "model_choice")}
    model = run.result.model

    home = open_page("home", text, state=state)
    no_exception(home)
    written = next(m for m in home.metric if m.label == "The model writes")
    decoded = run.result.vocab.decode(greedy_batch(model, [run.result.vocab.encode(text, 5)])[0])
    assert written.value == decoded.replace(" ", "␣")
    assert "rotate the text left by 2 places" in " ".join(m.value for m in home.markdown)

    decode = open_page("decode", text, state=state)
    no_exception(decode)
    step = 1
    source = parse_rule(task).source_positions(text, GREEK)[step]
    assert f"under {task}, step {step} copies source position <strong>{source}</strong>" in decode_sentences(decode, step)

    attention = open_page("attention", text, state={**state, "kind": "cross"})
    no_exception(attention)
    said = " ".join(m.value for m in [*attention.info, *attention.markdown])   # the kind's explanation is a box
    assert "should look at source position (i+2) mod n" in said
    src = torch.tensor([run.result.vocab.encode(text, 5)])
    tgt = torch.tensor([[1, *greedy_batch(model, src.tolist())[0][:-1]]])
    cross = model(src, tgt, trace=True).trace["cross", 0]
    shares = pattern_share(cross, [text], task, GREEK)
    assert all(f"head {h}: **{s:.0%}**" in said for h, s in enumerate(shares.tolist()))

    for page in ("lab_heads", "lesson"):
        opened = open_page(page, text, state=state)
        no_exception(opened)
