"""What a training run's snapshots say, as numbers the Training page words its story from: when the learner's
text first comes out right against when the pattern takes most steps, the share a random head would score, and
every head's share in the final model."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from transformer import train
from transformer.data import expected_keys, sample_strings
from transformer.task_rules import LATIN

MOST = 0.5   # "most output steps on the pattern": more than half


@dataclass(frozen=True)
class TrainingStory:
    first_right: dict | None    # the first snapshot that writes the learner's text exactly (None: none does)
    first_most: dict | None     # the first snapshot with at least MOST of held-out steps on the pattern
    last: dict                  # the final snapshot

    @property
    def output_first(self) -> bool:
        """The text is right at an earlier snapshot than the one where most steps are on the pattern."""
        return self.first_right is not None and (self.first_most is None
                                                 or self.first_right["step"] < self.first_most["step"])


def training_story(index: list[dict], writes_right: dict[int, bool]) -> TrainingStory:
    """index: the snapshots in step order (step, fraction, loss, exact_match, alignment); writes_right: for each
    snapshot step, whether it writes the learner's text exactly."""
    first_right = next((s for s in index if writes_right[s["step"]]), None)
    first_most = next((s for s in index if s["alignment"] >= MOST), None)
    return TrainingStory(first_right, first_most, index[-1])


@dataclass(frozen=True)
class Chance:
    share: float    # the pattern share a head whose largest weight fell on a random source position would score
    words: int
    steps: int      # output steps that name a source position, pooled over the words


def chance_share(texts: list[str], task: str, letters: str = LATIN) -> Chance:
    """Step i of a text of n characters is on the pattern by chance with probability |allowed keys| / n (one
    position for reverse and copy; every position holding the same letter for sort). Pooled as the metric pools
    its hits: over all output steps of all words, so short words weigh less than 1/n suggests."""
    allowed = [(len(keys), len(text)) for text in texts for keys in expected_keys(text, task, letters)]
    return Chance(sum(k / n for k, n in allowed) / max(len(allowed), 1), len(texts), len(allowed))


@lru_cache(maxsize=8)
def snapshot_chance(max_len: int, task: str, letters: str = LATIN, min_len: int = 1) -> Chance:
    """The chance share on the held-out words behind every snapshot's figures: training measures a snapshot on
    its whole validation sample (--eval-n words drawn with VALIDATION_SEED)."""
    words = train.parse_args(["--out", "unused"]).eval_n
    texts = sample_strings(words, train.VALIDATION_SEED, max_len, held_out=True, min_len=min_len, letters=letters)
    return chance_share(texts, task, letters)


@dataclass(frozen=True)
class HeadShare:
    layer: int
    head: int
    share: float


def head_shares(metrics: dict) -> list[HeadShare]:
    """Every cross head's pattern share in the final model, from its final report (metrics.json); [] when the
    report has none (a model trained live or uploaded without it)."""
    by_layer = metrics.get("cross_attention_alignment") or {}
    return [HeadShare(int(name.removeprefix("layer_")), h, float(x))
            for name, shares in sorted(by_layer.items(), key=lambda kv: int(kv[0].removeprefix("layer_")))
            for h, x in enumerate(shares)]
