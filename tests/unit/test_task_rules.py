"""The task language: each operation's output and position map, composition left to right, alphabets of other
scripts, the messages that name the wrong part, and the search that finds a rule from examples."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transformer import task_rules as tr
from transformer.rule_search import ExampleError, parse_examples, search
from transformer.task_rules import parse_rule, task_spec

GREEK = "αβγδεζηθικλμνξοπρστυφχψω"

KNOWN = {   # the rule, a text, and its output worked out by hand
    "reverse": ("hello", "olleh"), "copy": ("hello", "hello"), "sort": ("b a ab", "  aabb"),
    "rotate:2": ("abcde", "cdeab"), "rotate:-1": ("abcde", "eabcd"), "swap-pairs": ("abcde", "badce"),
    "shift:1": ("az by", "ba cz"), "shift:-1": ("ab", "za"), "double": ("abc", "aabbcc"),
    "dedupe": ("banana band", "ban d"), "mirror": ("abc", "abccba"), "interleave": ("abcde", "adbec"),
    "reverse|shift:1": ("abz", "acb"), "shift:1|reverse": ("abz", "acb"), "rotate:1|double": ("abc", "bbccaa"),
    "double|dedupe": ("abca", "abc"), "interleave|copy": ("abcdef", "adbecf"),
}


@pytest.mark.parametrize("spec", KNOWN)
def test_each_operation_writes_what_it_says_and_its_positions_point_at_the_characters_it_wrote(spec):
    text, want = KNOWN[spec]
    rule = parse_rule(spec)
    out, positions = rule.trace(text)
    assert out == want
    moved = "".join(text[p] for p in positions)
    if "shift" in spec:
        k = sum(s.k for s in rule.steps if s.operation.name == "shift")
        assert out == tr.shifted(moved, k, tr.LATIN)      # shift keeps the positions and moves the letters
    else:
        assert out == moved


def test_the_three_bundled_tasks_keep_their_old_definitions():
    rng = random.Random(0)
    for _ in range(300):
        text = "".join(rng.choice(" ab" + tr.LATIN) for _ in range(rng.randint(1, 20)))
        assert parse_rule("reverse").apply(text) == text[::-1]
        assert parse_rule("copy").apply(text) == text
        assert parse_rule("sort").apply(text) == "".join(sorted(text))
        assert parse_rule("sort").source_positions(text) == sorted(range(len(text)), key=lambda i: (text[i], i))


def test_a_rule_is_read_in_any_case_and_spacing_and_spelled_one_way():
    assert parse_rule("  Reverse | SHIFT: 1 ").spec == "reverse|shift:1"
    assert parse_rule("rotate:+2").spec == "rotate:2"


def test_shift_wraps_within_a_greek_alphabet_and_leaves_the_space():
    spec = task_spec("shift:1", GREEK, "1-12")
    assert spec.rule.apply("αω ψ", spec.alphabet) == "βα ω"
    assert task_spec("shift:2|sort", GREEK).rule.apply("ωα", GREEK) == "βγ"   # sorted after the shift


@pytest.mark.parametrize("spec, error, part", [
    ("rotat:2", tr.UnknownOperationError, "'rotat:2' is not an operation"),
    ("reverse|flip", tr.UnknownOperationError, "part 2 ('flip')"),
    ("rotate", tr.OperationParameterError, "rotate needs a number"),
    ("rotate:two", tr.OperationParameterError, "'two' is not a whole number"),
    ("shift:0", tr.OperationParameterError, "other than 0"),
    ("shift:400", tr.OperationParameterError, "from -39 to 39"),
    ("copy:1", tr.OperationParameterError, "copy takes no number"),
    ("reverse|copy|sort|copy", tr.TooManyOperationsError, "4 operations"),
    ("", tr.UnknownOperationError, "empty"),
    ("__import__('os')", tr.UnknownOperationError, "is not an operation"),
])
def test_a_bad_rule_gets_a_message_naming_its_wrong_part(spec, error, part):
    with pytest.raises(error, match=None) as raised:
        parse_rule(spec)
    assert part in str(raised.value)


@pytest.mark.parametrize("alphabet, part", [
    ("a", "at least 2"), ("abcb", "repeats 'b'"), ("abc!", "letters and digits only"),
    ("e\u0301", "letters and digits only"), ("".join(chr(0x3b1 + i) for i in range(25)) + tr.LATIN, "at most 40"),
])
def test_a_bad_alphabet_gets_a_message_naming_what_is_wrong(alphabet, part):
    with pytest.raises(tr.AlphabetError) as raised:
        task_spec("reverse", alphabet)
    assert part in str(raised.value)


@pytest.mark.parametrize("alphabet", [GREEK, "абвгдежзийклмнопрстуфхцчшщъыьэюя", "कखगघचछजझटठडढणतथदधनपबभमयरलवशसह",
                                      "אבגדהוזחטיכלמנסעפצקרשת", "ابتثجحخدذرزسشصضطظعغفقكلمنهوي", "0123456789"])
def test_letters_of_other_scripts_and_digits_make_an_alphabet(alphabet):
    spec = task_spec("reverse|shift:1", alphabet, "2-9")
    assert spec.characters == " " + "".join(sorted(alphabet)) and (spec.min_len, spec.max_len) == (2, 9)


def test_lengths_and_outputs_too_long_are_refused_with_the_range_allowed():
    with pytest.raises(tr.LengthRangeError, match="at most 48"):
        task_spec("reverse", lengths="1-49")
    with pytest.raises(tr.LengthRangeError, match="not a range"):
        task_spec("reverse", lengths="one to five")
    with pytest.raises(tr.OutputTooLongError, match="at most 24"):
        task_spec("double|mirror", lengths="1-30")
    assert task_spec("double", lengths="1-48").max_output == 96


OPERATION_SPECS = st.sampled_from(["reverse", "sort", "rotate:1", "rotate:-3", "swap-pairs", "shift:2", "double",
                                   "dedupe", "mirror", "interleave"])


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(OPERATION_SPECS, min_size=1, max_size=3), st.text(alphabet=" abcz", min_size=0, max_size=20))
def test_any_composition_points_each_output_character_at_a_source_position(ops, text):
    rule = parse_rule("|".join(ops))
    out, positions = rule.trace(text)
    assert len(out) == len(positions) <= rule.length_factor * len(text)
    assert all(0 <= p < len(text) for p in positions)
    k = sum(s.k for s in rule.steps if s.operation.name == "shift")
    assert out == tr.shifted("".join(text[p] for p in positions), k, tr.LATIN)


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.text(max_size=200), st.text(max_size=60), st.text(max_size=12))
def test_any_spec_alphabet_and_lengths_give_a_task_or_a_task_spec_error(spec, alphabet, lengths):
    try:
        task = task_spec(spec, alphabet or tr.LATIN, lengths or "1-12")
    except tr.TaskSpecError as err:
        assert str(err)
    else:
        assert task.max_output <= tr.MAX_OUTPUT and len(task.rule.steps) <= tr.MAX_OPERATIONS


def test_five_examples_of_swap_pairs_find_swap_pairs_alone():
    pairs = parse_examples("abcd -> badc\nhello → ehllo\nxy -> yx\nabcdef -> badcfe\nq -> q")
    result = search(pairs)
    assert result.found is not None and result.found.spec == "swap-pairs"
    assert all(result.found.apply(a) == b for a, b in pairs)


def test_when_several_rules_fit_the_question_splits_them_and_answering_it_narrows_to_one():
    truth = parse_rule("rotate:2")
    pairs = parse_examples("abcd -> cdab\nwxyz -> yzwx\nqrst -> stqr")   # length 4: reverse|swap-pairs fits too
    asked = 0
    while True:
        result = search(pairs)
        assert result.behaviours, "the rule that made the examples always fits them"
        if result.found:
            break
        answers = {answer for answer, _ in result.answers}
        assert len(answers) > 1                                   # the question tells at least two apart
        pairs.append((result.question, truth.apply(result.question)))
        asked += 1
        assert asked < 8
    probes = ["abcdefg"[:n] for n in range(1, 8)]
    assert all(result.found.apply(p) == truth.apply(p) for p in probes)
    assert asked >= 1


def test_examples_no_rule_fits_find_nothing_and_bad_lines_are_named():
    assert search(parse_examples("abc -> xyz\nab -> ba\ncc -> cc")).behaviours == ()
    with pytest.raises(ExampleError, match="Line 2"):
        parse_examples("abc -> cba\nabc cba\nab -> ba")
    with pytest.raises(ExampleError, match="from 3 to 20"):
        parse_examples("abc -> cba")
    with pytest.raises(ExampleError, match="'!'"):
        parse_examples("ab! -> !ba\nab -> ba\nc -> c")


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(OPERATION_SPECS, min_size=1, max_size=3), st.sampled_from([tr.LATIN, GREEK, "0123456789"]),
       st.integers(1, 12), st.integers(0, 11))
def test_the_preview_of_any_task_shows_its_own_answers_on_texts_of_its_alphabet(ops, alphabet, high, shorter):
    from analysis.page_models.own_task import task_preview
    try:
        spec = task_spec("|".join(ops), alphabet, f"{max(1, high - shorter)}-{high}")
    except tr.OutputTooLongError:
        return
    preview = task_preview(spec)
    assert spec.spec in preview.sentence
    for (text, answer), positions in zip(preview.examples, preview.positions):
        assert set(text) <= set(spec.characters) and spec.min_len <= len(text) <= spec.max_len
        assert answer == spec.rule.apply(text, spec.alphabet) and len(positions) == len(answer)
