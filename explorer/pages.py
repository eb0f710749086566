"""Every page of the app, declared once: the router (app.py), the glossary, the lesson's links, the tests' page
lists and the benchmarks read this table. Adding a page means a row here, a page model (the Streamlit-free
function that computes everything it shows, analysis/page_models/<id>.py) and a script in app_pages/ named by
its id that draws it; tests/unit/test_pages.py fails while a script, a row and a page model do not match.

Plain data that makes no Streamlit call, so tests and benchmarks read it without running the app (importing the
explorer package still loads Streamlit and installs its guards: explorer/__init__.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from teaching.glossary import GLOSSARY

ROOT = Path(__file__).resolve().parents[1]
PAGES_DIR = ROOT / "app_pages"


@dataclass(frozen=True)
class Page:
    id: str                  # the script's name in app_pages/, and the name tests use
    title: str
    icon: str
    section: str
    url_path: str            # "" for Home, the default page
    terms: tuple[str, ...]   # the glossary terms the page uses, in the order its popover lists them
    reads_text: bool = True  # it shows the sidebar's text (the Glossary does not)
    canvases: int = 0        # the canvas heatmaps it draws for a typed word under the reversal (explorer.components)
    svgs: int = 0            # its SVG diagrams (viz.architecture)
    plotlys: int = 0         # and its Plotly charts (viz.plotly_charts): the browser tests count all three
    model_module: str = ""   # where its page model lives, if not analysis/page_models/<id>.py

    @property
    def script(self) -> str:
        """The path st.Page and AppTest take, relative to the project's root."""
        return f"app_pages/{self.id}.py"

    @property
    def model(self) -> str:
        """The module of its page model, dotted."""
        return self.model_module or f"analysis.page_models.{self.id}"


LESSON, EXPLORE, LAB = "Lesson", "Explore", "Lab: change it and see"

PAGES: tuple[Page, ...] = (
    Page("lesson", "Lesson", "🎓", LESSON, "lesson",
         ("token", "embedding", "d_model", "positional encoding", "encoder", "decoder", "attention head", "query",
          "key", "value", "score", "d_k", "softmax", "mask", "causal mask", "self-attention", "cross-attention",
          "logit", "greedy decoding", "teacher forcing", "ablation", "exact match"),
         model_module="teaching.step_views"),
    Page("quiz", "Quiz: before and after", "📝", LESSON, "quiz", (), reads_text=False,
         model_module="teaching.quiz_results"),
    Page("run_a_class", "Run a class", "📣", LESSON, "run-a-class", (), reads_text=False,
         model_module="teaching.class_mode"),
    Page("join", "Join a class", "🙋", LESSON, "join", (), reads_text=False,
         model_module="teaching.class_mode"),
    Page("glossary", "Glossary", "📖", LESSON, "glossary", (), reads_text=False,
         model_module="teaching.glossary_view"),
    Page("home", "Home", "🏠", EXPLORE, "",
         ("encoder", "decoder", "embedding", "residual stream", "LayerNorm", "feed-forward network", "generator",
          "exact match"), svgs=1),
    Page("decode", "Decode step by step", "⏯️", EXPLORE, "decode",
         ("decoder", "token", "logit", "softmax", "greedy decoding", "temperature", "top-k", "entropy", "nats",
          "cross-attention", "causal mask", "key/value cache", "draft decoding")),   # drawn in HTML
    Page("attention", "Attention", "🔍", EXPLORE, "attention",
         ("attention head", "query", "key", "value", "attention weight", "self-attention", "cross-attention", "W^O",
          "anti-diagonal"), canvases=3),
    Page("inside_one_head", "Inside one head", "🔬", EXPLORE, "inside-one-head",
         ("residual stream", "LayerNorm", "query", "key", "value", "score", "d_k", "softmax", "attention weight",
          "W^O", "feed-forward network", "logit", "logit lens", "QK circuit", "OV circuit"), canvases=3),
    Page("positional", "Positional encoding", "🌊", EXPLORE, "positional",
         ("embedding", "d_model", "positional encoding"), canvases=4, plotlys=3),
    Page("masks", "Masks", "🎭", EXPLORE, "masks",
         ("mask", "padding mask", "causal mask", "score", "softmax", "d_k"), canvases=4, plotlys=1),
    Page("training", "Training", "📈", EXPLORE, "training",
         ("loss", "exact match", "teacher forcing", "cross-attention", "snapshot", "anti-diagonal"),
         canvases=1, plotlys=2),
    Page("compare_tasks", "Compare tasks", "⚖️", EXPLORE, "compare-tasks",
         ("cross-attention", "attention head", "exact match", "anti-diagonal", "QK circuit"), canvases=8),
    Page("lab_ablation", "Switch heads off", "✂️", LAB, "lab-ablation",
         ("ablation", "attention head", "exact match", "teacher forcing", "rule of three", "standard error"),
         canvases=1, plotlys=1),
    Page("lab_heads", "Which head does the work?", "🏅", LAB, "lab-heads",
         ("attention head", "ablation", "cross-attention", "self-attention", "entropy", "nats", "uniformity",
          "Spearman ρ", "offset"), plotlys=2),
    Page("lab_positions", "No positions", "🔀", LAB, "lab-positions", ("positional encoding", "exact match"),
         canvases=1),
    Page("lab_forcing", "Teacher forcing", "🧑‍🏫", LAB, "lab-forcing",
         ("teacher forcing", "greedy decoding", "cross-attention", "free running", "exposure bias"), canvases=1),
    Page("lab_length", "Longer than trained", "📏", LAB, "lab-length", ("exact match", "positional encoding"),
         canvases=2, plotlys=1),
    Page("lab_query_key", "Queries and keys", "🧭", LAB, "lab-query-key", ("query", "key", "score", "softmax", "PCA"),
         canvases=1, plotlys=1),
    Page("lab_patch", "Build a head", "🛠️", LAB, "lab-patch",
         ("cross-attention", "attention head", "attention weight", "ablation", "exact match", "patching",
          "sufficiency and necessity", "standard error"), canvases=2),
    Page("lab_attribution", "Why this character?", "🔎", LAB, "lab-attribution",
         ("cross-attention", "attention weight", "gradient × input", "integrated gradients", "occlusion",
          "attention rollout", "Spearman ρ", "nats"), canvases=2),
    Page("lab_activation_patching", "Patch one activation", "🩹", LAB, "lab-activation-patching",
         ("patching", "residual stream", "cross-attention", "attention head")),   # grid on request
    Page("how_it_reverses", "How it reverses", "🧩", LAB, "how-it-reverses",
         ("residual stream", "linear probe", "refitted probe", "R²", "ablation", "exact match", "cross-attention",
          "uniformity", "composition", "offset"), canvases=1),
)
BY_ID: dict[str, Page] = {p.id: p for p in PAGES}
TITLES: dict[str, str] = {p.id: p.title for p in PAGES}
SECTIONS: tuple[str, ...] = tuple(dict.fromkeys(p.section for p in PAGES))


def page(page_id: str) -> Page:
    """The registry's row for a page id (KeyError names the ids there are)."""
    try:
        return BY_ID[page_id]
    except KeyError:
        raise KeyError(f"no page {page_id!r}; the pages are {', '.join(BY_ID)}") from None


def at_url_path(url_path: str) -> Page:
    """The row of the page st.navigation is showing (its url_path: "" for the default page)."""
    return next(p for p in PAGES if p.url_path == url_path)


def pages_using(term: str) -> list[Page]:
    return [p for p in PAGES if term in p.terms]


def mismatched_scripts(pages_dir: Path = PAGES_DIR) -> dict[str, list[str]]:
    """Scripts in pages_dir no row names, and rows with no script: both empty when the two agree."""
    scripts = {p.stem for p in pages_dir.glob("*.py") if p.stem != "__init__"}
    return {"scripts without a row": sorted(scripts - BY_ID.keys()),
            "rows without a script": sorted(BY_ID.keys() - scripts)}


def pages_without_model(root: Path = ROOT) -> list[str]:
    """The pages whose page model module is not a file under root: empty when every page has one."""
    return [p.id for p in PAGES if not (root / (p.model.replace(".", "/") + ".py")).is_file()]


assert len(BY_ID) == len(PAGES) and len({p.url_path for p in PAGES}) == len(PAGES), "a page id or path twice"
assert all(t in GLOSSARY for p in PAGES for t in p.terms), "a page names a term the glossary does not define"
