"""Home: the model's answer at once, and its architecture with its real sizes."""

import streamlit as st

from analysis.page_models.home import home_view
from analysis.tasks import words
from explorer.callbacks import set_state
from explorer.cache import checkpoint_or_stop, model_key, text_run
from explorer.components import svg_chart
from explorer.links import page_link
from explorer.state import TEXT_KEY, learner_text
from explorer.text import in_full
from viz.architecture import architecture_svg

EXAMPLES = ("hello", "banana", "aaab", "teacher forcing", "attention is all you need")

ckpt = checkpoint_or_stop()
key = model_key()   # names the model in use: the key of every cached run below
task = words(ckpt.task)
st.title("🔁 Attention explorer")
page_link("lesson", "New here? Start with the Lesson (ten steps)", "🎓")   # short enough for a phone's width
st.markdown(
    f"A small encoder-decoder Transformer, trained to **{task.verb}**, shows on your own text the numbers behind "
    "its answer: the next-token probabilities of every step, the positional codes, the masks, and the attention "
    "weights of every layer and head. "
    "Type in the sidebar, or under ✏️ *Your text* at the top of any page; every page follows your text. "
    "The encoder reads the whole source at once; "
    f"the decoder then writes {task.output} one character at a time, each step reading its own output so far. "
    "The sidebar's *Task* switches between three models of the same architecture, trained to reverse, copy or sort."
)

st.caption("Try one:")
with st.container(horizontal=True):   # a row that wraps: whole words on a phone and at 1024 px
    for example in EXAMPLES:
        st.button(example, key=f"example_{example}", on_click=set_state, args=(TEXT_KEY, example))

text = learner_text(ckpt)
view = home_view(ckpt, text, text_run(key, text))

left, right = st.columns(2)
left.metric("You typed", view.typed)
in_full(left, text)
right.metric("The model writes", view.written, delta=view.verdict, delta_color="normal" if view.right else "inverse")
in_full(right, view.output)
st.caption(view.steps_caption)

st.header("The architecture")
c = view.config
svg_chart(architecture_svg(c.d_model, c.n_heads, c.d_ff, c.n_encoder_layers, c.n_decoder_layers, c.vocab_size,
                           c.norm, c.tie_embeddings), key="architecture")

st.subheader("Residual connections and LayerNorm")
st.markdown(view.norm_sentence)
st.latex(r"\begin{gathered}\text{pre-norm: } x + \mathrm{Sublayer}(\mathrm{LN}(x)) \\ "
         r"\text{post-norm: } \mathrm{LN}(x + \mathrm{Sublayer}(x))\end{gathered}")

st.subheader("Position-wise feed-forward network")
st.markdown(view.ffn_sentence)
st.latex(view.ffn_formula)
st.caption(view.ffn_caption)

st.subheader("Weight tying")
st.markdown(view.tying_sentence)

st.dataframe(view.parameters, hide_index=True, width="content")
st.caption(view.total_caption)
