"""Every citation of the format in the code, the tests and the documents names a numbered heading
of docs/spec.md, so "spec 7.3" always leads somewhere. The forms read as citations: "spec 4.2",
"spec 2.4, 2.5 and 6", "spec section 14", "§7.3", "sections 9 and 14 of the spec". A bare
"section 3" is not one: docs/hosting.md numbers its own sections that way, so code that cites the
spec says "spec N"."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "docs" / "spec.md"
SEARCHED = ("src", "tests", "js", "docs", "bench", "examples", "README.md", "ARCHITECTURE.md", "CHANGELOG.md")
TEXT_SUFFIXES = {".py", ".js", ".mjs", ".ts", ".md", ".txt", ".html", ".css", ".toml", ".cfg", ".ipynb"}
NOT_SOURCE = {"node_modules", "dist", "work", "__pycache__", ".tools", ".pytest_cache"}
THIS_FILE = Path(__file__).resolve()  # its made-up citations test the checker

NUMBER = r"\d+(?:\.\d+)*"
SERIES = rf"{NUMBER}(?:(?:\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+)§?\s*{NUMBER})*"
CITATIONS = [
    re.compile(rf"\bspec(?:'s)?\s+(?:sections?\s+|§\s*)?({SERIES})", re.IGNORECASE),
    re.compile(rf"§\s*({SERIES})"),
    re.compile(rf"\bsections?\s+({SERIES})\s+of\s+the\s+spec\b", re.IGNORECASE),
]
HEADING = re.compile(rf"^#{{1,6}}\s+({NUMBER})\.?\s", re.MULTILINE)


def headings(markdown: str) -> set[str]:
    """The section numbers of a markdown document's numbered headings ("## 4. ...", "### 4.2 ...")."""
    return set(HEADING.findall(markdown))


def citations(text: str) -> list[tuple[int, str]]:
    """(line, section number) of every citation of the spec in `text`, in order of appearance."""
    found = []
    for pattern in CITATIONS:
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found += [(match.start(1) + number.start(), line, number.group()) for number in re.finditer(NUMBER, match.group(1))]
    return [(line, number) for _, line, number in sorted(found)]


def unresolved(text: str, known: set[str]) -> list[str]:
    """The cited section numbers of `text` that are not headings in `known`."""
    return [n for _, n in citations(text) if n not in known]


def _searched_files() -> list[Path]:
    files = []
    for name in SEARCHED:
        top = ROOT / name
        candidates = [top] if top.is_file() else sorted(top.rglob("*")) if top.is_dir() else []
        files += [
            p for p in candidates
            if p.is_file() and p.suffix in TEXT_SUFFIXES and p != THIS_FILE and not NOT_SOURCE & set(p.relative_to(ROOT).parts)
        ]
    return files


def test_every_citation_of_the_spec_names_a_heading_of_docs_spec() -> None:
    known = headings(SPEC.read_text(encoding="utf-8"))
    broken = []
    checked = 0
    for path in _searched_files():
        for line, number in citations(path.read_text(encoding="utf-8", errors="replace")):
            checked += 1
            if number not in known:
                broken.append(f"{path.relative_to(ROOT)}:{line}: spec {number}")
    assert checked > 200, f"only {checked} citations found: is the search still reading the sources?"
    assert not broken, "citations of sections docs/spec.md does not have:\n" + "\n".join(broken)


def test_the_checker_reads_every_form_of_citation_and_nothing_else() -> None:
    text = (
        "the rule (spec 4.2, 4.3 and 6) and spec section 14;\n"
        "see §7.3 or §9, the spec's section 2.1, sections 9 and 14 of the spec, Spec\nsection 5.\n"
        "Not these: fsspec 2026.9.0, spec_version 0.2.0, docs/hosting.md section 3, RFC 9110 14."
    )
    numbers = [n for _, n in citations(text)]
    assert sorted(numbers) == sorted(["4.2", "4.3", "6", "14", "7.3", "9", "2.1", "9", "14", "5"])
    assert (2, "5") in citations(text)  # the line of a citation broken over two lines is its first


def test_a_citation_of_a_section_the_spec_lacks_is_reported() -> None:
    known = headings(SPEC.read_text(encoding="utf-8"))
    assert unresolved("valid per spec 4.2 and 4.7 (§15, spec 10.9), see spec 14", known) == ["4.7", "15", "10.9"]
    assert unresolved("nothing cited here", known) == []


def test_docs_spec_keeps_the_numbering_the_code_cites() -> None:
    """The sections and subsections of chronozarr 0.2, numbered as the citations expect."""
    expected = {str(n) for n in range(15)} | {f"2.{i}" for i in range(1, 6)} | {f"3.{i}" for i in range(1, 10)}
    expected |= {"4.1", "4.2", "4.3", "4.2.1", "4.2.2", "4.2.3", "4.2.4", "7.1", "7.2", "7.3", "7.4"}
    expected |= {f"10.{i}" for i in range(1, 9)}
    assert expected <= headings(SPEC.read_text(encoding="utf-8"))
    assert headings("## 4. Temporal\n### 4.2 Star-delta\n#### Decoding\n# 12 x\n") == {"4", "4.2", "12"}


def test_docs_spec_links_the_history_extension_and_every_link_resolves() -> None:
    text = SPEC.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)\)", text)
    assert "format-history.md" in links
    missing = [link for link in links if "://" not in link and not (SPEC.parent / link).exists()]
    assert not missing, missing
