"""A copied link for every page: query parameters that differ from every default, and the widget values
(session state) each should give. Shared by the AppTest and the browser tests of links."""

from transformer.checkpoint import bundled_checkpoint, snapshot_index

SNAPSHOT = snapshot_index(bundled_checkpoint("reverse"))[3]["step"]   # one step the reversal run saved, not the last

LINKS: dict[str, tuple[dict[str, str | list[str]], dict[str, object]]] = {
    "home": ({"text": "level", "projector": "true"}, {"text": "level", "projector": True}),
    "lesson": ({"text": "level", "lesson_step": "4"}, {"lesson_step": 4}),
    "glossary": ({"text": "level"}, {"text": "level"}),
    "quiz": ({"text": "level", "quiz": "1234"}, {"text": "level"}),  # the seed; the answers: test_quiz_page.py
    "run_a_class": ({"text": "level"}, {"text": "level"}),          # a class's own link holds its secret
    "join": ({"text": "level"}, {"text": "level"}),   # ?class= fills the code in: tests/app/test_class_mode.py
    "decode": ({"text": "level", "mode": "sample", "temperature": "2.5", "top_k": "5", "seed": "7", "step": "3",
                "step_layer": "0", "step_head": "2", "show_cache": "true"},
               {"mode": "sample", "temperature": 2.5, "top_k": 5, "seed": 7, "step_layer": 0, "step_head": 2}),
    # the step and the cache's tables: tests/app/test_decode.py
    "attention": ({"text": "level", "kind": "Decoder self", "layer": "0", "head": "1"},
                  {"kind": "decoder_self", "layer": 0}),    # the head: tests/app/test_attention.py
    "inside_one_head": ({"text": "level", "inside_kind": "Decoder self", "inside_layer": "0", "inside_head": "1",
                     "inside_query": "2", "inside_key": "position 1", "ablated": ["cross L1 H0"]},
                    {"inside_kind": "decoder_self", "inside_layer": 0, "inside_head": 1, "inside_query": 2,
                     "inside_key": 1, "ablated": ["cross L1 H0"]}),
    "positional": ({"text": "level", "pe_d_model": "32", "pe_positions": "40", "delta": "5", "pos": "7"},
                   {"pe_d_model": 32, "pe_positions": 40, "delta": 5, "pos": 7}),
    "masks": ({"text": "level", "mask_kind": "Cross", "mask_layer": "1", "mask_head": "2", "mask_row": "row 1",
               "mask_d_k": "256"},
              {"mask_kind": "cross", "mask_layer": 1, "mask_head": 2, "mask_row": 1, "mask_d_k": 256}),
    "training": ({"text": "level", "snapshot": str(SNAPSHOT)}, {"snapshot": SNAPSHOT}),
    "compare_tasks": ({"text": "level", "task": "sort", "grid_task": "Copy", "split_alone": "content·content alone"},
                      {"task": "sort", "grid_task": "Copy", "split_alone": "content·content alone"}),
    "lab_ablation": ({"text": "level", "ablated": ["cross L1 H0", "encoder_self L0 H3"], "lab_kind": "Encoder self",
                      "lab_layer": "0", "lab_head": "3"},
                     {"ablated": ["cross L1 H0", "encoder_self L0 H3"], "lab_kind": "encoder_self", "lab_layer": 0,
                      "lab_head": 3}),
    "lab_heads": ({"text": "level"}, {"text": "level"}),
    "lab_positions": ({"text": "level", "pe_mode": "Shuffled", "pe_sides": "Source (encoder)", "pe_seed": "5",
                       "pe_layer": "0"},
                      {"pe_mode": "shuffle", "pe_sides": ["source"], "pe_seed": 5, "pe_layer": 0}),
    "lab_attribution": ({"text": "level", "why_step": "2", "why_layer": "0", "why_head": "head 3"},
                        {"why_step": 2, "why_layer": 0, "why_head": "head 3"}),
    "lab_activation_patching": ({"text": "level", "patch_pair": "type one", "patch_other": "levee",
                                 "patch_site": "the decoder's residual stream after a layer, at one position",
                                 "patch_position": "2", "patch_layer": "1", "patch_head": "2"},
                                {"patch_pair": "type one", "patch_other": "levee", "patch_site": "decoder_stream",
                                 "patch_position": 2, "patch_layer": 1, "patch_head": 2}),
    "lab_forcing": ({"text": "level", "force_step": "step 2", "force_token": "q"},
                    {"force_step": 2, "force_token": "q"}),
    "lab_length": ({"text": "level", "long_text": "abcdefghijklmnopqrstuvwxyzab"},
                   {"long_text": "abcdefghijklmnopqrstuvwxyzab"}),
    "how_it_reverses": ({"text": "level"}, {"text": "level"}),
    "lab_query_key": ({"text": "level", "qk_kind": "Encoder self", "qk_layer": "0", "qk_head": "3"},
                      {"qk_kind": "encoder_self", "qk_layer": 0, "qk_head": 3}),
    "lab_patch": ({"text": "level", "patch_pattern": "one to the right (n−i)", "patch_where": "cross L0 H3 alone"},
                  {"patch_pattern": "task+1", "patch_where": "cross L0 H3 alone"}),
}

# Parameters a page keeps in its link itself, not through a widget: the quiz's seed (its answers, once handed in), and
# Attention's head, which the browser switches and writes (explorer/components/front_end.js).
NOT_WIDGETS: dict[str, set[str]] = {"quiz": {"quiz"}, "attention": {"head"}, "decode": {"step", "show_cache"}}
