"""The lesson's questions: each graded against the model's own numbers, right for the model in use (an early
training snapshot gives its own answers), and the teacher's sheet built from them."""

import random

import numpy as np
import pytest
import torch

from analysis import attribution
from analysis.lab import ablation_ranking
from analysis.lesson import FORCED_OUTCOMES, forced_outcome, forced_outcomes
from analysis.offsets import head_offsets, run_offsets
from analysis.run import Decoding, make_run
from teaching import questions as q
from explorer.pages import TITLES
from teaching.glossary import GLOSSARY
from teaching.sheet import sheet_html, sheet_markdown
from teaching.steps import INTRODUCTION_MINUTES, STEPS, WRAP_UP_MINUTES
from transformer.checkpoint import load_snapshot, snapshot_index
from transformer.data import random_string
from transformer.intervention import Head, Intervention, every_head

from ..conftest import BUNDLED

TEXT = "banana"
CLASS_TEXTS = ("hello", "the quick brown fox jumps over the lazy dog", "aaab")   # short, long, repeated letters


@pytest.fixture(scope="module")
def early(bundled):
    """The bundled model at its second snapshot (1 % of its training run): another model, the same vocabulary."""
    return load_snapshot(BUNDLED, snapshot_index(BUNDLED)[1]["step"])


@pytest.fixture(scope="module")
def ranking(bundled):
    """Every head switched off in turn, and every cross head's offsets, on a few words (once for the module)."""
    words = ["level", "banana", "attention", "abc"]
    return (words, ablation_ranking(bundled.model, bundled.vocab, words)[1],
            head_offsets(bundled.model, bundled.vocab, words, kind="cross"))


def runs(model, vocab, text=TEXT):
    return {
        "greedy": make_run(model, vocab, text),
        "taught": make_run(model, vocab, text, Decoding(teacher=True)),
        "shuffled": make_run(model, vocab, text, edit=Intervention(positions="shuffle", sides=frozenset({"source"}))),
        "forced": make_run(model, vocab, text, Decoding(forced=((0, vocab.encode("z", 1)[0]),))),
        "encoder_off": make_run(model, vocab, text, edit=Intervention(frozenset(
            h for h in every_head(model.config.layers_per_kind, model.config.n_heads) if h.kind == "encoder_self"))),
    }


def reading_fit(run):
    """Layer 0's cross head that keeps to one offset most often on the run (the head step 6 asks about)."""
    return max(run_offsets(run, "cross", 0), key=lambda f: (f.best_share, f.mean_top_weight))


def questions(model, vocab, text=TEXT):
    r = runs(model, vocab, text)
    fit = reading_fit(r["greedy"])
    return {
        "embedding": q.embedding_question(r["greedy"]),
        "positions": q.positions_question(text, r["greedy"], r["shuffled"]),
        "scaling": q.scaling_question(r["greedy"], 0, 0, 0),
        "mask": q.mask_question(r["taught"], 0, 0, 3),
        "decode": q.decode_question(r["greedy"], 1),
        "cross": q.cross_question(r["greedy"], 0, fit.head, 3, fit, model.config.n_decoder_layers - 1),
        "forcing": q.forcing_question(text, r["forced"], "z", None),
        "encoder_off": q.encoder_off_question(text, r["encoder_off"]),
    }


def test_every_kind_of_question_grades_its_answer_right_and_every_other_option_wrong(bundled, ranking):
    every = questions(bundled.model, bundled.vocab)
    every["snapshot"] = q.snapshot_question(TEXT, [(50, "aaaa"), (500, TEXT[::-1]), (5000, TEXT[::-1])])
    _, effects, fits = ranking
    every["head"] = q.ablation_question(effects, 4, fits)
    assert {question.kind for question in every.values()} == set(q.KINDS_OF_ANSWER)
    for name, question in every.items():
        assert question.grade(question.answer), name
        wrong = [o for o in question.options if o not in question.answers]
        assert wrong, name                                         # there is a way to be wrong
        assert not any(question.grade(o) for o in wrong), name
        assert not question.grade(None)
        assert question.hint, name
        if len(question.answer) > 2:                               # a hint never names the answer
            assert question.answer not in question.hint, name
    assert every["snapshot"].answer == "step 500"
    cross = [e for e in effects if e.head.kind == "cross"]
    assert every["head"].answers == {f"{q.KIND_SHORT[e.head.kind]} L{e.head.layer} H{e.head.head}"
                                     for e in cross if e.drop == max(x.drop for x in cross)}


def test_a_wrong_snapshot_gets_told_earlier_or_later():
    question = q.snapshot_question("ab", [(50, ""), (500, "ba"), (5000, "ba")])
    assert question.answer == "step 500"
    assert question.hint_for("step 50").startswith("Later") and question.hint_for("never").startswith("Earlier")
    assert question.hint_for("step 5,000").startswith("Earlier")


def test_the_mask_question_is_answered_by_the_weights_on_later_positions(bundled):
    question = questions(bundled.model, bundled.vocab)["mask"]
    assert question.answer == "exactly 0"                            # the causal mask, as the model applies it
    later = make_run(bundled.model, bundled.vocab, TEXT, Decoding(teacher=True)).trace["decoder_self", 0][0, 3, 4:]
    assert later.max() == 0.0


@pytest.mark.parametrize("which", ["bundled", "early"])
def test_each_answer_is_read_from_the_model_in_use(bundled, early, which):
    model = bundled.model if which == "bundled" else early
    vocab = bundled.vocab
    r = runs(model, vocab)
    got = questions(model, vocab)
    greedy = r["greedy"]
    assert got["decode"].answer == greedy.decoder_out[1]
    top = int(greedy.trace["cross", 0][reading_fit(greedy).head, 3].argmax())
    assert got["cross"].answer == f"{top}: {greedy.source[top]}"
    forced = r["forced"].output
    assert got["forcing"].answer == q.forced_options("z", "reverse")[
        "restart" if forced == "z" + TEXT[::-1] else "carry on" if forced == "z" + TEXT[::-1][1:] else "other"
    ]
    assert got["encoder_off"].answer.startswith("yes" if r["encoder_off"].output == TEXT[::-1] else "no")
    assert got["positions"].answer.startswith("yes" if r["shuffled"].output == TEXT[::-1] else "no")
    moved = int((r["shuffled"].trace["src_positions.rows"] != r["greedy"].trace["src_positions.rows"]).any(-1).sum())
    assert f"moved {moved} of the {len(TEXT)} codes" in got["positions"].why
    embedding = np.linalg.norm(greedy.trace["src_embed.output"][0])
    code = np.linalg.norm(greedy.trace["src_positions.rows"][0])
    assert (got["embedding"].answer == "the scaled embedding") == (embedding > 1.1 * code)


def test_another_model_gives_other_answers(bundled, early):
    changed = set()
    for text in ("banana", "parallel", "attention"):
        now, then = questions(bundled.model, bundled.vocab, text), questions(early, bundled.vocab, text)
        changed |= {name for name in now if now[name].answers != then[name].answers}
    assert {"decode", "cross", "forcing"} <= changed, changed


def test_the_ablation_question_follows_the_ranking_it_is_given():
    effects = [q.HeadEffect(Head("cross", 1, 0), 0.2, 0.8), q.HeadEffect(Head("encoder_self", 0, 1), 0.9, 0.1)]
    assert q.ablation_question(effects, 10).answer == "Cross L1 H0"
    flipped = [q.HeadEffect(e.head, e.drop, e.exact_match) for e in effects]
    assert q.ablation_question(flipped, 10).answer == "Encoder self L0 H1"
    # the second review: the quiz asks what switching off any of step 9's heads costs, so the reveal names the
    # cost of every one, not the largest four
    eight = [q.HeadEffect(Head("cross", layer, h), 0.5, 0.01 * (4 * layer + h)) for layer in (0, 1) for h in range(4)]
    why = q.ablation_question(eight, 10).why
    assert all(f"Cross L{layer} H{h} {0.01 * (4 * layer + h):.1%}" in why for layer in (0, 1) for h in range(4))


def test_the_teachers_sheet_has_every_step_question_and_expected_answer_in_fifty_minutes(bundled):
    got = questions(bundled.model, bundled.vocab)
    head = q.ablation_question([q.HeadEffect(Head("cross", 1, 0), 0.2, 0.8)] * 1, 10)
    run = make_run(bundled.model, bundled.vocab, "parallel")
    lenses = attribution.lenses(bundled.model, bundled.vocab, run)
    swaps = q.which_character_question(run, lenses.attention[-1].mean(0)[2], lenses.occlusion[2], 2, 5, (7, 9))
    every = [got["embedding"], got["positions"], got["scaling"], got["mask"], got["decode"], got["cross"],
             None, got["forcing"], head, got["encoder_off"], swaps]          # step 7 without snapshots says so
    markdown = sheet_markdown("par<b>allel", "the bundled model", every, TITLES)
    page = sheet_html("par<b>allel", "the bundled model", every, TITLES)
    assert INTRODUCTION_MINUTES + sum(s.minutes for s in STEPS if not s.optional) + WRAP_UP_MINUTES == 50
    assert "| 47–50 | Wrap-up" in markdown and "| 50–55 | Optional, for a longer class: step 11" in markdown
    assert "Optional, for the class's gain: the before quiz (5 min)" in markdown     # the review's P10
    assert "(5 min, optional: for a longer class)" in markdown
    for step, question in zip(STEPS, every):
        assert f"Step {step.number} · {step.title}" in markdown
        assert f"(page: {TITLES[step.page]})" in markdown and f"(page: {TITLES[step.page]})" in page
        if question is not None:
            assert question.prompt in markdown and f"- {question.answer} **← expected**" in markdown
    assert "No question here for this model" in markdown
    assert f"open the app's {TITLES['run_a_class']} page" in markdown     # class mode, named as the sidebar does
    assert f"open the app&#x27;s {TITLES['run_a_class']} page" in page
    assert "<b>allel" not in page and "par&lt;b&gt;allel" in page        # the class's text is escaped
    assert page.count("← expected") == sum(len(x.answers) for x in every if x is not None)


def test_the_glossary_has_one_or_two_sentences_a_term():
    assert len(GLOSSARY) >= 30
    assert all(20 < len(text) < 400 for text in GLOSSARY.values())


def test_the_glossary_says_q_k_and_v_as_this_pre_norm_model_computes_them(bundled):
    """The review's N12: 'its vector times W_Q' left out the LayerNorm and the bias the model applies (Inside one
    head shows both), and sufficiency was 'enough' without 'with the rest of the model as it is'."""
    run = make_run(bundled.model, bundled.vocab, "hello")
    layer = bundled.model.encoder_layers[0]
    x = run.trace["src_positions.output"].astype(float)                                   # (S, d_model)
    normed = layer.attention_residual.norm(torch.tensor(x, dtype=torch.float32)).double().numpy()
    for name, proj in (("queries", layer.self_attention.w_q), ("keys", layer.self_attention.w_k),
                       ("values", layer.self_attention.w_v)):
        mine = normed @ proj.weight.double().numpy().T + proj.bias.double().numpy()        # (S, d_model)
        traced = run.trace[f"encoder_layers.0.self_attention.{name}"]                     # (H, S, d_k)
        assert np.allclose(mine, np.concatenate(list(traced), axis=-1), atol=1e-5)
    for term, matrix in (("query", "W_Q"), ("key", "W_K"), ("value", "W_V")):
        assert f"after the sublayer's LayerNorm, times {matrix}, plus a" in GLOSSARY[term]
    assert "with everything else in the model unchanged (sufficiency)" in GLOSSARY["sufficiency and necessity"]


# --- Steps 6 to 9 as rewritten for issue 25, each on a short text, a long one and one of repeated letters ----


@pytest.mark.parametrize("text", CLASS_TEXTS)
def test_step_6_asks_where_the_layer_0_head_looks_and_the_hint_follows_what_it_does(bundled, text):
    run = make_run(bundled.model, bundled.vocab, text)
    fit = reading_fit(run)
    question = q.cross_question(run, 0, fit.head, 3, fit, 1)
    n, weights = len(text), run.trace["cross", 0][fit.head, 3]
    top = int(weights.argmax())
    assert question.answers == {f"{top}: {run.source[top]}"}
    assert len(question.options) == n                                  # every source position, none cut off
    if top == n - 3:                                                    # where the character just read came from
        assert f"has just read '{run.decoder_in[3]}'" in question.hint and "came from" in question.why
    elif top == n - 4:
        assert "about to write" in question.hint
    else:
        assert "neither" in question.hint
    last = run.trace["cross", 1][:, 3].argmax(-1)
    assert f"{int((last == n - 4).sum())} of {len(last)} on n − 1 − i = {n - 4}" in question.why
    assert ("one to the left" in question.why) == (top == n - 3 and (last == n - 4).sum() > len(last) / 2)
    assert ("holds for this step only in part" in question.why) == ((last == n - 4).sum() <= len(last) / 2)
    assert f"{fit.best_share:.0%}" in question.prompt
    if fit.best_offset == 1:                                            # n − i: past the end at step 0 alone
        assert f"at 1 of its {n} steps n−i lies outside your text, so {(n - 1) / n:.0%} is the most" in question.prompt


def test_on_the_bundled_reverser_the_reading_head_finds_where_the_letter_just_read_came_from(bundled):
    """The lesson's reading (issue 25): on held-out words, layer 0's sharpest cross head is on n − i most often.
    Measured, not assumed: the test fails if the model did something else."""
    words = [w for w in CLASS_TEXTS]
    best = max(head_offsets(bundled.model, bundled.vocab, words, kind="cross", layer=0), key=lambda f: f.best_share)
    assert best.best_offset == 1 and best.best_share > 0.5


@pytest.mark.parametrize("text", CLASS_TEXTS)
def test_step_8_answer_is_what_the_model_writes_after_the_forced_token(bundled, text):
    z = bundled.vocab.encode("z", 1)[0]
    forced = make_run(bundled.model, bundled.vocab, text, Decoding(forced=((0, z),)))
    outcomes = forced_outcomes(bundled.model, bundled.vocab, [text, "banana", "abc"], "z")
    question = q.forcing_question(text, forced, "z", outcomes)
    written, want = forced.output, text[::-1]
    expected = "restart" if written == "z" + want else "carry on" if written == "z" + want[1:] else "other"
    assert question.answers == {q.forced_options("z", "reverse")[expected]}
    assert f"'{written}'" in question.why and f"On {outcomes.words} held-out words" in question.why
    common = q.forced_options("z", "reverse")[outcomes.commonest]
    if common not in question.answers:                                  # the usual case, when yours is not usual
        assert "yours is one of the others" in question.hint_for(common)
    if outcomes.counts["restart"] > outcomes.words / 2:                 # most recover: is yours one of them?
        assert ("yours is one of the words that do not" in question.why) == (expected != "restart")


def test_forced_outcomes_count_each_word_as_its_own_decoding_does(bundled):
    words = ["hello", "banana", "the quick brown fox", "aaab", "zebra"]           # "zebra" reversed starts with a
    got = forced_outcomes(bundled.model, bundled.vocab, words, "a")
    kept = [w for w in words if not w[::-1].startswith("a")]
    assert got.words == len(kept) == 3
    a = bundled.vocab.encode("a", 1)[0]
    one_by_one = [forced_outcome(make_run(bundled.model, bundled.vocab, w, Decoding(forced=((0, a),))).output,
                                 w[::-1], "a") for w in kept]
    assert got.counts == {o: one_by_one.count(o) for o in FORCED_OUTCOMES}


def test_step_7_sets_the_first_right_snapshot_against_the_anti_diagonal_share():
    outputs = [(50, "xx"), (600, "olleh"), (12000, "olleh")]
    question = q.snapshot_question("hello", outputs, {50: 0.04, 600: 0.116, 12000: 0.712})
    assert question.answer == "step 600"
    assert "11.6%" in question.why and "71.2%" in question.why and "before the attention looks clean" in question.why
    clean = q.snapshot_question("hello", outputs, {50: 0.04, 600: 0.9, 12000: 0.95})
    assert "before the attention looks clean" not in clean.why          # the words follow the numbers
    at_the_end = q.snapshot_question("hello", [(50, "xx"), (12000, "olleh")], {50: 0.04, 12000: 0.712})
    assert at_the_end.why.count("71.2%") == 1 and "(step 12,000, the last snapshot)" in at_the_end.why   # once


def test_step_9_asks_among_the_heads_whose_offsets_are_on_screen(ranking):
    words, effects, fits = ranking
    question = q.ablation_question(effects, len(words), fits)
    cross = [e for e in effects if e.head.kind == "cross"]
    assert len(question.options) == len(cross) == len(fits)
    worst = max(e.drop for e in cross)
    assert question.answers == {q.head_name(e.head) for e in cross if e.drop == worst}
    assert "largest weight on" in question.why                          # the pattern beside the loss


@pytest.mark.parametrize("text", CLASS_TEXTS)
def test_steps_1_3_4_put_their_evidence_in_reach(bundled, text):
    run = make_run(bundled.model, bundled.vocab, text)
    embedding = q.embedding_question(run)
    raw = np.linalg.norm(run.trace["src_embed.output"][0]) / np.sqrt(bundled.model.config.d_model)
    assert f"‖e‖ = {raw:.2f}" in embedding.hint
    scaling = q.scaling_question(run, 0, 0, 0)
    assert "single key" not in scaling.hint
    last = run.trace["encoder_self", 0][0][:, -1]
    assert f"between {last.min():.2f} and {last.max():.2f}" in scaling.why
    on_last = int((run.trace["encoder_self", 0][0].argmax(-1) == len(text) - 1).sum())
    assert f"{on_last} of the {len(text)} rows" in scaling.why
    assert ("step 10" in scaling.why) == (on_last == len(text) <= q.SHORT)
    taught = make_run(bundled.model, bundled.vocab, text, Decoding(teacher=True))
    mask = q.mask_question(taught, 0, 0, 3)
    later = taught.decoder_in[4:]
    assert (f"the {len(later)} positions after it?" in mask.prompt) == (len(later) > 8)
    assert ("0, exactly" in mask.why) == (mask.answer == "exactly 0")


def test_step_3_says_the_encoder_marks_the_end_only_of_short_texts(bundled):
    """Review finding N5: every row of encoder L0 H0 picks the last character on most held-out words of up to 8
    characters and on almost none longer, so the reading is offered on short texts only, and says so."""
    from explorer.lab_runs import held_out_sample

    def every_row_on_last(text: str) -> bool:
        weights = make_run(bundled.model, bundled.vocab, text).trace["encoder_self", 0][0]      # (S, S)
        return bool((weights.argmax(-1) == len(text) - 1).all())

    words = held_out_sample(bundled.model.config.max_len)
    short = [every_row_on_last(w) for w in words if 1 < len(w) <= q.SHORT]
    long = [every_row_on_last(w) for w in words if len(w) > q.SHORT]
    assert sum(short) / len(short) >= 0.8 and sum(long) / len(long) <= 0.02, (sum(short), len(short), sum(long))
    # the second review: "up to 8 characters" overclaimed; by length, on 60 random texts each, as the words say
    rng = random.Random(5)
    share = {n: sum(every_row_on_last(random_string(rng, n)) for _ in range(60)) / 60 for n in range(2, 10)}
    assert min(share[n] for n in range(2, 6)) >= 0.9 and share[6] >= 0.5, share            # nearly all, most
    assert max(share[n] for n in (7, 8, 9)) <= 0.25, share                                   # few longer
    said = q.scaling_question(make_run(bundled.model, bundled.vocab, "hello"), 0, 0, 0).why
    assert "5 of the 5 rows" in said and "short texts like this one" in said and "longer texts" in said


def test_the_teachers_sheet_carries_the_numbers_each_prompt_points_at(bundled):
    """Review finding N10: the prompts say "the table above", "the mask above", "the shares on screen", "what the
    held-out words did"; the sheet now holds those numbers under each step, recomputed here from the model."""
    from explorer.classes import CLASS_MODEL_KEY
    from explorer.lesson import all_views

    text = "hello"
    views = all_views(CLASS_MODEL_KEY, text)
    markdown = sheet_markdown(text, "the bundled model", [v.question for v in views], TITLES,
                              before=[v.before for v in views])
    page = sheet_html(text, "the bundled model", [v.question for v in views], TITLES,
                      before=[v.before for v in views])
    step = {n: markdown.split(f"## Step {n} ·")[1].split("## Step")[0] for n in range(1, len(STEPS) + 1)}
    run = make_run(bundled.model, bundled.vocab, text)
    lengths = np.linalg.norm(run.trace["src_embed.output"], axis=-1) / np.sqrt(bundled.model.config.d_model)
    assert "| ‖e‖, its embedding's length | " + " | ".join(f"{x:.2f}" for x in lengths) + " |" in step[1]
    weights = run.trace["encoder_self", 0][0]                                                         # (S, S)
    assert "| 0 h | " + " | ".join(f"{w:.2f}" for w in weights[0]) + " |" in step[3]
    t = len(text) + 1                                      # ⟨s⟩ and the reversal: the decoder's positions
    assert step[4].count(" hidden |") == t * (t - 1) // 2 and step[4].count(" read |") == t * (t + 1) // 2
    snapshots = snapshot_index(BUNDLED)
    assert all(f"| {s['step']} | {s['alignment']:.1%} |" in step[7] for s in snapshots), step[7]
    forced = make_run(bundled.model, bundled.vocab, text, Decoding(forced=((0, bundled.vocab.encode("z", 1)[0]),)))
    assert forced.output in views[7].question.why and "held-out words | after 'z' forced first" in step[8]
    for n in range(1, len(STEPS) + 1):
        assert step[n].index("On screen before the vote") < step[n].index("**Ask first.**"), n
    assert page.count("On screen before the vote") == len(STEPS) and "<td>hidden</td>" in page


def test_a_count_of_the_glossarys_terms_in_the_docs_is_the_glossarys_own():
    """Review N11: the README said "every technical term the pages use (57)" of a glossary of 59. Any count the
    README or the learner's tour gives beside the glossary's row must be len(GLOSSARY)."""
    from pathlib import Path
    import re
    root = Path(__file__).resolve().parents[2]
    texts = [(root / "README.md").read_text(), (root / "docs" / "learners-tour.md").read_text()]
    rows = [line for text in texts for line in text.splitlines() if "every technical term the pages use" in line]
    assert rows
    counts = [int(c) for row in rows for pair in re.findall(r"use \((\d+)\)|(\d+) terms", row) for c in pair if c]
    assert all(c == len(GLOSSARY) for c in counts), (counts, len(GLOSSARY))
