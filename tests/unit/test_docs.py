"""The README is a door and the docs stay true: the README's size and first screen, no dates, hashes, timings or
issue numbers in it, every file it, the docs and the code's comments name exists, and the teacher's guide's plan
is the teacher's sheet's own. (`mkdocs build --strict`, run by the test command, checks the site's own links.)"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import yaml

from teaching.sheet import _schedule

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
ROOMS = ("app_pages", "explorer", "analysis", "teaching", "viz", "transformer", "classroom", "server", "drivers",
         "benchmarks", "scripts", "tests", "docs", "checkpoints", ".streamlit", ".ci")
NAMED_PATH = re.compile(r"(?<![\w/.])((?:%s)/[\w./-]*\w)" % "|".join(re.escape(r) for r in ROOMS))
# Paths a text names on purpose though they do not exist: a test's missing checkpoint; a benchmark's record
# before its first run.
HERE = "tests/unit/test_docs.py"   # its examples of broken citations are meant
MEANT_MISSING = re.compile(r"checkpoints/not-an-own-model|docs/records/\w+\.json")


def test_the_readme_is_a_door_of_at_most_1500_words():
    assert len(README.split()) <= 1500


def test_the_readmes_first_screen_says_what_it_is_shows_it_and_gives_both_commands():
    first = "\n".join(README.splitlines()[:40])
    assert "Transformer" in first and re.search(r"!\[[^\]]+\]\(docs/pictures/[\w-]+\.png\)", first)
    assert "bash scripts/run.sh" in first and "bash scripts/test.sh" in first
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text()          # CI proves the README


def test_the_readme_holds_no_date_hash_timing_or_issue_number():
    assert not re.findall(r"\b20\d\d-\d\d-\d\d\b", README)
    assert not re.findall(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b", README)
    assert not re.findall(r"\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds|min|minutes)\b", README)
    assert not re.findall(r"(?i)\bissue\s+\d+|#\d+\b", README)


def test_every_file_the_readme_links_exists():
    links = re.findall(r"\]\(([^)#\s]+)", README)
    assert links and [link for link in links if not link.startswith("http") and not (ROOT / link).exists()] == []


def test_every_page_of_the_sites_nav_exists():
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    pages = [next(iter(item.values())) for item in nav]
    assert len(pages) >= 7 and [p for p in pages if not (ROOT / "docs" / p).is_file()] == []


def named_paths() -> dict[str, list[str]]:
    """Each repository path (`explorer/gate.py`) a tracked text file names, with where."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    found: dict[str, list[str]] = {}
    for name in tracked.split():
        if not re.search(r"\.(py|md|sh|toml|yml|js|ini|txt)$", name) or not (ROOT / name).is_file() or name == HERE:
            continue
        for number, line in enumerate((ROOT / name).read_text(errors="ignore").splitlines(), 1):
            for path in NAMED_PATH.findall(line):
                found.setdefault(path.rstrip("."), []).append(f"{name}:{number}")
    return found


def test_every_file_a_comment_a_doc_or_the_config_names_exists():
    found = named_paths()
    assert len(found) > 100                                   # the scan reads what it should
    missing = {path: where[:3] for path, where in found.items()
               if not MEANT_MISSING.fullmatch(path) and not (ROOT / path).exists()
               and not list(ROOT.glob(path + "*"))}           # a stem: `tests/e2e/test_hostile_` for its files
    assert missing == {}


def test_the_teachers_guides_plan_is_the_teachers_sheets():
    guide = (ROOT / "docs" / "teachers-guide.md").read_text()
    rows = re.findall(r"^\| (\d+)–(\d+) \| (.+) \|$", guide, re.M)
    assert [(int(a), int(b), what) for a, b, what in rows] == _schedule()


def anchors(markdown: str) -> set[str]:
    """The anchors MkDocs and GitHub give a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#+ (.+)$", markdown, re.M)}


def broken_citations(texts: dict[str, str]) -> list[tuple[str, str]]:
    """Each README section cited (`README, "Its heading"`) or page anchor (`docs/x.md#anchor`, `README.md#anchor`)
    in these texts that does not exist."""
    broken = []
    for name, text in texts.items():
        for heading in re.findall(r'README(?:\.md)?, "([^"]+)"', text):
            if heading not in re.findall(r"^#+ (.+)$", README, re.M):
                broken.append((name, heading))
        for page, anchor in re.findall(r"((?:docs/)?[\w-]+\.md)#([\w-]+)", text):
            path = ROOT / page if (ROOT / page).exists() else ROOT / "docs" / page
            if not path.exists() or anchor not in anchors(path.read_text()):
                broken.append((name, f"{page}#{anchor}"))
    return broken


def test_every_section_a_comment_or_a_doc_cites_is_there():
    """The README lost most of its sections to docs/: a citation of one it no longer has points nowhere."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    texts = {name: (ROOT / name).read_text(errors="ignore") for name in tracked.split()
             if re.search(r"\.(py|md|sh|toml|yml|js)$", name) and (ROOT / name).is_file() and name != HERE}
    assert broken_citations(texts) == []
    assert broken_citations({"x.py": '# (README, "A lecture hall") and docs/teachers-guide.md#no-such-part'}) == [
        ("x.py", "A lecture hall"), ("x.py", "docs/teachers-guide.md#no-such-part")]
    assert broken_citations({"x.py": "docs/teachers-guide.md#how-big-a-class"}) == []


def test_every_picture_the_browser_tests_keep_is_shown_somewhere():
    """docs/pictures/ holds what a page shows and nothing else: a picture no page uses would be retaken and
    committed for nothing."""
    shown = set(re.findall(r"pictures/([\w-]+\.png)", README + "".join(
        page.read_text() for page in (ROOT / "docs").glob("*.md"))))
    kept = {path.name for path in (ROOT / "docs" / "pictures").glob("*.png")}
    assert shown and kept - shown == set()


ROOM_NAME = re.compile(r"(?<![\w./])((?:analysis|app_pages|benchmarks|classroom|drivers|explorer|scripts|server|"
                       r"teaching|transformer|viz)(?:\.[A-Za-z_]\w*)+)")


def defined_names(module: Path) -> set[str]:
    """What a module defines or imports at any depth: its functions, classes and assigned names."""
    names = set()
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def names_nothing(reference: str) -> bool:
    """`explorer.classes.take_seat`: no module of that path, or no such name in the module. A Streamlit option
    (`server.port`) is not one of ours: the `server.` of a name that is no module of server/ is passed over."""
    parts = reference.split(".")
    if parts[0] == "server" and not (ROOT / "server" / f"{parts[1]}.py").exists():
        return False
    for cut in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:cut])
        module = base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"
        if module.exists():
            rest = parts[cut:]
            return bool(rest) and rest[0] not in ("py", "md", "json", "js") and rest[0] not in defined_names(module)
    return True


def test_every_function_or_module_a_comment_or_a_doc_names_exists():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    named, missing = 0, []
    for name in tracked.split():
        if not re.search(r"\.(py|md|sh|toml|yml)$", name) or not (ROOT / name).is_file() or name == HERE:
            continue
        for number, line in enumerate((ROOT / name).read_text(errors="ignore").splitlines(), 1):
            if line.lstrip().startswith(("import ", "from ")):        # Python checks those itself
                continue
            for reference in ROOM_NAME.findall(line):
                named += 1
                if names_nothing(reference.rstrip(".")):
                    missing.append((reference, f"{name}:{number}"))
    assert named > 100 and missing == []
    assert names_nothing("explorer.identity.COOKIE") and names_nothing("explorer.classes.no_such_function")
    assert not names_nothing("server.identity.COOKIE") and not names_nothing("server.port")
