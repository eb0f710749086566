"""The lab pages under AppTest: every control, every number checked against the lab run directly."""

import numpy as np
import pytest
from scipy.stats import spearmanr

from analysis import lab, offsets
from analysis.labels import visible
from analysis.run import TEACHER, Decoding, correct_tokens, make_run
from transformer.data import held_out_strings
from transformer.intervention import NO_INTERVENTION, Head, Intervention
from transformer.metrics import exact_match

from explorer.text import SHORT

from .helpers import (array, canvas_charts, chart_numbers, figures, metric_values, no_exception, open_page,
                      plotly_series)

LAST_CROSS = [f"cross L1 H{h}" for h in range(4)]


def word(ckpt, text, edit=NO_INTERVENTION):
    """(the model's own output, the probability of each correct character, the teacher-forced run)."""
    limit = lab.lab_limit(ckpt.model)
    taught = make_run(ckpt.model, ckpt.vocab, text, TEACHER, edit, limit)
    own = make_run(ckpt.model, ckpt.vocab, text, edit=edit, max_len=limit)
    return own.output, taught.probability_of(correct_tokens(ckpt.vocab, text, limit)), taught


def test_switching_heads_off_changes_the_output_probabilities_and_attention(ckpt):
    at = open_page("lab_ablation", "banana")
    no_exception(at)
    assert metric_values(at)[:2] == ["ananab", "ananab"]  # nothing switched off yet
    at.multiselect(key="ablated").set_value(LAST_CROSS).run()
    no_exception(at)
    edit = Intervention(ablated=frozenset(Head("cross", 1, h) for h in range(4)))
    output, p_after, after = word(ckpt, "banana", edit)
    _, p_before, before = word(ckpt, "banana")
    assert metric_values(at)[:2] == ["ananab", output] and output != "ananab"
    bars = plotly_series(figures(at)["probabilities"])
    assert np.allclose(bars["unchanged"], p_before, atol=1e-6)
    assert np.allclose(bars["changed"], p_after, atol=1e-6)
    changed = canvas_charts(at)["changed"]["panels"]   # default view: cross-attention, last layer, head 0
    assert np.allclose(np.array(changed[0]["z"]), before.trace["cross", 1][0], atol=5e-5)
    assert np.allclose(np.array(changed[1]["z"]), after.trace["cross", 1][0], atol=5e-5)


LONG = "the quick brown fox jumps"      # 25 characters: longer than a metric shows whole


def test_both_outputs_of_a_lab_are_shown_whole_under_their_metrics(ckpt):
    """A metric cuts a long text off with "…": what the model writes with and without its heads, or its
    positions, is also written out in full."""
    at = open_page("lab_ablation", LONG)
    at.multiselect(key="ablated").set_value(LAST_CROSS).run()
    no_exception(at)
    before, after = word(ckpt, LONG)[0], word(ckpt, LONG, Intervention(
        ablated=frozenset(Head("cross", 1, h) for h in range(4))))[0]
    shown = [visible(t) for t in (before, after) if len(t) > SHORT]
    assert len(shown) >= 1 and [c.value for c in at.code] == shown
    at = open_page("lab_positions", LONG)
    no_exception(at)
    after = word(ckpt, LONG, Intervention(positions="zero", sides=frozenset({"source", "target"})))[0]
    assert [c.value for c in at.code] == [visible(t) for t in (before, after) if len(t) > SHORT]
    assert metric_values(at)[2] == "100.0%"          # the exact matches are a row of their own, under the texts


def test_presets_and_the_attention_selectors():
    at = open_page("lab_ablation", "level")
    at.button(key="preset_every encoder head").click().run()
    assert at.multiselect(key="ablated").value == [f"encoder_self L{layer} H{h}" for layer in range(2) for h in range(4)]
    at.segmented_control(key="lab_kind").set_value("decoder_self").run()
    at.selectbox(key="lab_layer").set_value(0).run()
    at.selectbox(key="lab_head").set_value(2).run()
    no_exception(at)
    assert canvas_charts(at)["changed"]["title"] == "Decoder self-attention, layer 0, head 2"
    at.button(key="preset_none").click().run()
    assert at.multiselect(key="ablated").value == []


def test_the_ablation_table_ranks_every_head_on_200_held_out_words(ckpt):
    at = open_page("lab_ablation", "hello")
    table = at.dataframe[0].value
    assert len(table) == 24 and len(set(table["head"])) == 24
    lost = table["exact match lost"].to_list()
    assert lost == sorted(lost, reverse=True)
    worst = table["head"].iloc[0]
    kind, layer, head = worst.split(" ")
    texts = held_out_strings(200, ckpt.model.config.max_len)
    without = exact_match(ckpt.model, ckpt.vocab, texts,
                          Intervention(ablated=frozenset({Head(kind, int(layer[1:]), int(head[1:]))}))).exact_match
    assert table.iloc[0, 1] == pytest.approx(without)


def test_one_sessions_ablation_is_not_seen_by_another():
    """Two sessions in one server process share the one cached model: the ablation stays in its own."""
    ablating = open_page("lab_ablation", "banana")
    ablating.multiselect(key="ablated").set_value(LAST_CROSS).run()
    broken = metric_values(ablating)[1]
    watching = open_page("attention", "banana")
    assert "Input **banana** → output **ananab**" in [c.value for c in watching.caption]
    other = open_page("lab_ablation", "banana")
    assert metric_values(other)[:2] == ["ananab", "ananab"]
    ablating.run()
    assert metric_values(ablating)[1] == broken != "ananab"


def test_which_head_reverses_ranks_scores_and_says_where_the_rankings_differ(ckpt):
    at = open_page("lab_heads", "hello")
    no_exception(at)
    table = at.dataframe[0].value
    texts = held_out_strings(200, ckpt.model.config.max_len)
    patterns = lab.pattern_scores(ckpt.model, ckpt.vocab, texts)
    assert table["head"].to_list() == [str(p.head) for p in patterns]
    assert np.allclose(table["pattern score"], [p.score for p in patterns])
    assert np.allclose(table["entropy (nats)"], [p.entropy for p in patterns])
    assert np.allclose(table["chance"], [p.chance for p in patterns])
    assert np.allclose(table["uniformity"], [p.uniformity for p in patterns])
    fits = {str(f.id): f for f in offsets.head_offsets(ckpt.model, ckpt.vocab, texts)}
    assert table["best offset"].to_list() == [fits[h].best_offset for h in table["head"]]
    assert np.allclose(table["steps there"], [fits[h].best_share for h in table["head"]])
    assert np.allclose(table["mean top weight"], [fits[h].mean_top_weight for h in table["head"]])
    rho = spearmanr(table["pattern score"], table["exact match lost when off"]).statistic
    text = " ".join(m.value for m in at.markdown)
    assert f"(Spearman ρ): **{rho:.2f}** over 24 heads: the two rankings **{lab.correlation_words(rho)}**" in text
    rho_offset = spearmanr(table["steps there"], table["exact match lost when off"]).statistic
    assert f"ρ = **{rho_offset:.2f}**: that ranking and harm **{lab.correlation_words(rho_offset)}**" in text
    charts = figures(at)
    points = plotly_series(charts["agreement"], "x")
    assert sorted(np.concatenate(list(points.values()))) == pytest.approx(sorted(table["pattern score"]))
    assert sorted(np.concatenate(list(plotly_series(charts["agreement"]).values()))) == pytest.approx(
        sorted(table["exact match lost when off"]))
    offset_points = plotly_series(charts["offset_agreement"], "x")
    assert sorted(np.concatenate(list(offset_points.values()))) == pytest.approx(sorted(table["steps there"]))
    # the head the model needs most is named with the offset that explains it, never as unexplained
    costliest = table.loc[table["exact match lost when off"].idxmax()]
    fit = fits[costliest["head"]]
    print(f"{costliest['head']}: offset {fit.best_offset:+d} in {fit.best_share:.3f}")
    if fit.explained and fit.best_offset != 0 and costliest["rank by pattern"] > 4:
        bullet = next(m.value for m in at.markdown if "Needed, and explained by an offset" in m.value)
        assert f"{costliest['head']} (" in bullet and f"offset {fit.best_offset:+d}, in {fit.best_share:.0%}" in bullet
    unexplained = [m.value for m in at.markdown if "this table cannot say what" in m.value]
    assert all(not fits[h].explained for m in unexplained for h in fits if f"{h} (" in m)
    assert all("holds the largest weight in only" in m for m in unexplained)   # a rare offset is not a finding
    # the even heads: the verdict follows what switching them off costs
    even = table[(table["uniformity"] >= 0.9) & ~table["head"].str.startswith("decoder_self")]
    costly = even.loc[even["exact match lost when off"].idxmax()]
    if costly["exact match lost when off"] * 100 >= 2 * 50 / 200 ** 0.5:
        assert f"Switching off **{costly['head']}**" in text and "*How it reverses* switches the evenly spreading heads off and probes for the length" in text
    else:
        assert f"costs at most **{costly['exact match lost when off']:.1%}**" in text
    assert "Yet" not in text and "doing nothing" not in text
    assert "obvious job" not in text and "the ideal pattern names" not in text


def test_which_head_copies_says_what_rho_and_the_costs_show():
    at = open_page("lab_heads", "hello", state={"task": "copy"})
    no_exception(at)
    table = at.dataframe[0].value
    text = " ".join(m.value for m in at.markdown)
    rho = spearmanr(table["pattern score"], table["exact match lost when off"]).statistic
    print(f"copy: ρ = {rho:.3f}")
    assert f"the two rankings **{lab.correlation_words(rho)}**" in text
    assert ("agree" in lab.correlation_words(rho)) == (rho >= 0.3)
    even = table[(table["uniformity"] >= 0.9) & ~table["head"].str.startswith("decoder_self")]
    if len(even):
        most = even["exact match lost when off"].max()
        assert ("costs at most" in text) == (most * 100 < 2 * 50 / 200 ** 0.5)
    assert "Yet" not in text and "doing nothing" not in text


@pytest.mark.parametrize("mode, sides", [("zero", ["source", "target"]), ("shuffle", ["source"]),
                                         ("zero", ["target"])])
def test_no_positions_shows_the_output_and_held_out_exact_match(ckpt, mode, sides):
    at = open_page("lab_positions", "banana")
    at.radio(key="pe_mode").set_value(mode).run()
    at.pills(key="pe_sides").set_value(sides).run()
    if mode == "shuffle":
        at.number_input(key="pe_seed").set_value(5).run()
    no_exception(at)
    edit = Intervention(positions=mode, sides=frozenset(sides), shuffle_seed=5 if mode == "shuffle" else 0)
    output, _, taught = word(ckpt, "banana", edit)
    sample = exact_match(ckpt.model, ckpt.vocab, held_out_strings(200, ckpt.model.config.max_len), edit).exact_match
    shown = metric_values(at)   # row by row: the outputs with and without positions, then their exact matches
    assert shown[0] == "ananab" and shown[1] == (output or "(nothing)")
    assert shown[2] == "100.0%" and shown[3] == f"{sample:.1%}"
    cross = canvas_charts(at)["cross"]["panels"]
    assert np.allclose(np.array(cross[1]["z"]), taught.trace["cross", 1].mean(0), atol=5e-5)
    at.selectbox(key="pe_layer").set_value(0).run()
    cross = canvas_charts(at)["cross"]["panels"]
    assert np.allclose(np.array(cross[1]["z"]), taught.trace["cross", 0].mean(0), atol=5e-5)


def test_no_positions_asks_for_a_side_when_none_is_chosen():
    at = open_page("lab_positions", "banana")
    at.pills(key="pe_sides").set_value([]).run()
    no_exception(at)
    assert "Choose the source, the target or both." in at.warning[0].value


def test_forcing_a_token_shows_where_free_running_departs(ckpt):
    at = open_page("lab_forcing", "banana")
    no_exception(at)
    assert at.success and not at.error
    assert set(canvas_charts(at)) == {"cross_unforced"} and "Force a token above" in at.info[0].value
    at.selectbox(key="force_step").set_value(2).run()
    at.selectbox(key="force_token").set_value("z").run()
    no_exception(at)
    free = make_run(ckpt.model, ckpt.vocab, "banana", Decoding(forced=((2, ckpt.vocab.tokens.index("z")),)))
    divergence = lab.first_divergence(make_run(ckpt.model, ckpt.vocab, "banana", TEACHER), free)
    table = at.dataframe[0].value
    assert table["fed onward"].iloc[2] == "z (forced)"
    assert table["free running reads"].iloc[3] == "a n z"
    assert f"**step {divergence}**" in at.error[0].value
    assert divergence == 3
    forced = canvas_charts(at)["cross_forced"]
    forced_map = np.array(forced["panels"][0]["z"], dtype=float)
    assert np.allclose(forced_map, free.trace["cross", 1].mean(0), atol=5e-5)
    assert forced_map.shape == (len(free.fed_ids), 6)
    assert forced["rows"][3] == "z"                                             # step 3 reads the forced z


def test_a_long_prefix_shows_its_latest_tokens_in_the_forcing_table():
    text = "attention is all you need abc"                    # the reversal's prefix at step 20: its last 12 count
    table = open_page("lab_forcing", text).dataframe[0].value
    shown = lambda chars: " ".join("␣" if c == " " else c for c in chars)  # noqa: E731
    assert table["teacher forcing reads"].iloc[20] == "… " + shown(text[::-1][8:20])
    assert table["teacher forcing reads"].iloc[5] == shown(text[::-1][:5])


def test_longer_than_trained_plots_every_length_and_compares_two_words(ckpt):
    at = open_page("lab_length", "hello")
    no_exception(at)
    chart = figures(at)["curve"]
    (matches,) = plotly_series(chart).values()
    trained = ckpt.model.config.max_len
    assert len(matches) == 2 * trained                                     # every length up to twice the trained
    assert [a["text"] for a in chart["layout"]["annotations"]] == [f"trained on lengths 1–{trained}"]
    assert list(array(chart["data"][0]["x"])) == list(range(1, 2 * trained + 1))
    assert f'<th scope="row">96</th><td>{matches[-1]:.1%}</td>' in chart_numbers(at)["curve"]   # its table's row
    assert matches[:trained].min() >= 0.9 and matches[trained * 5 // 4:].max() <= 0.1
    long = ("abcdefghijklmnopqrstuvwxyz" * 3)[:trained + 6]
    at.text_input(key="long_text").set_value(long).run()
    no_exception(at)
    output, _, taught = word(ckpt, long)
    assert metric_values(at)[1] == output
    long_map = np.array(canvas_charts(at)["attention_long"]["panels"][0]["z"], dtype=float)
    assert np.allclose(long_map, taught.trace["cross", 1].mean(0), atol=5e-5)


@pytest.mark.parametrize("typed, message", [("a" * 97, "97"), ("héllo", "é"), ("", "")])
def test_longer_than_trained_refuses_bad_text_with_a_message(typed, message):
    at = open_page("lab_length", "hello")
    at.text_input(key="long_text").set_value(typed).run()
    no_exception(at)
    assert at.error and message in at.error[0].value


@pytest.mark.parametrize("kind, layer, head", [("cross", 1, 0), ("encoder_self", 0, 3), ("decoder_self", 1, 2)])
def test_queries_and_keys_plane_matches_the_lab_projection(ckpt, kind, layer, head):
    at = open_page("lab_query_key", "level")
    at.segmented_control(key="qk_kind").set_value(kind).run()
    at.selectbox(key="qk_layer").set_value(layer).run()
    at.selectbox(key="qk_head").set_value(head).run()
    no_exception(at)
    expected = lab.query_key_map(make_run(ckpt.model, ckpt.vocab, "level"), kind, layer, head)
    plane = figures(at)["plane"]
    assert np.allclose(plotly_series(plane, "x")["queries"], expected.query_xy[:, 0], atol=1e-6)
    assert np.allclose(plotly_series(plane)["keys"], expected.key_xy[:, 1], atol=1e-6)
    (arrows,) = [t for t in plane["data"] if not t.get("name")]                  # each query an arrow from 0
    tips = array(arrows["x"]).astype(float).reshape(-1, 3)
    assert np.allclose(tips[:, 0], 0) and np.allclose(tips[:, 1], expected.query_xy[:, 0], atol=1e-6)
    finite = np.isfinite(expected.scores)
    drawn = canvas_charts(at)["scores"]["panels"][0]["z"]
    assert all((v is None) == (not f) for row, frow in zip(drawn, finite) for v, f in zip(row, frow))  # −∞ as null
    assert np.allclose(np.array(drawn, dtype=float)[finite], expected.scores[finite], atol=1e-4)
    caption = " ".join(c.value for c in at.caption)
    assert f"For {expected.agreement:.0%} of the queries" in caption
