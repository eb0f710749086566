import io
import json

import numpy as np
import pandas as pd

from explorer.exports import matrix_csv, trace_json
from analysis.run import make_run


def test_csv_keeps_repeated_letters_apart_and_holds_the_weights(ckpt):
    run = make_run(ckpt.model, ckpt.vocab, "level")
    weights = run.trace["encoder_self", 0][0]
    frame = pd.read_csv(io.StringIO(matrix_csv(weights, run.source, run.source)), index_col=0)
    assert list(frame.columns) == ["0:l", "1:e", "2:v", "3:e", "4:l"]
    assert np.allclose(frame.to_numpy(), weights, atol=1e-5)


def test_json_trace_has_every_kind_layer_and_head_and_null_for_masked_scores(ckpt):
    run = make_run(ckpt.model, ckpt.vocab, "hello")
    doc = json.loads(trace_json("hello", run))
    c = ckpt.model.config
    assert doc["output"] == run.output
    assert doc["shapes"]["cross"] == [c.n_decoder_layers, c.n_heads, len(run.decoder_in), 5]
    assert np.allclose(np.array(doc["weights"]["cross"]), run.trace.stack_attention("cross"), atol=1e-6)
    decoder_scores = doc["scores"]["decoder_self"][0][0]
    assert decoder_scores[0][1] is None          # the future is masked: -inf written as null
    assert decoder_scores[1][0] is not None
