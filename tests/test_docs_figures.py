"""Each measured figure lives in one place, ``docs/performance.md``; other documents link to it.

Figures restated elsewhere drift (one count of instructions per job was 566,000 in one
document and 593,419 in another), so in README.md and every other document:

- a number with a unit that performance.md measures in (µs, ms, jobs/s, instructions, a
  ratio's multiplication sign or x, %) fails, unless ``NOT_FIGURES`` lists it as a design
  constant (a batch window, a histogram's bucket width), which is no measurement;
- a number of five or more digits that performance.md also states fails, unless it is a
  count that ``COUNTS`` lists (jobs in a queue, not a measurement);
- a link to a section of performance.md must name one of its headings.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PERFORMANCE = ROOT / "docs" / "performance.md"
OTHERS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md")
                                      if p != PERFORMANCE)]

_NUMBER = r"\d[\d,]*(?:\.\d+)?"
DASH, TIMES = "\u2013", "\u00d7"  # the en dash of ranges, the sign of ratios (0.43x)
# A number, or a range or pair of them ("83-107", "0.84 / 2.5"), then a unit.
WITH_UNIT = re.compile(
    rf"(?<![\w.,]){_NUMBER}(?:\s*(?:[-{DASH}/]|to)\s*{_NUMBER})*\s*"
    rf"(?:µs|us|ms|jobs/s|jobs per second|instructions|{TIMES}|x|%)(?![\w/])")
# Five or more digits: 12,345 or 1,234,567 (thousands separated), or 12345.
BIG = re.compile(r"(?<![\w.,])(?:\d{2,3}(?:,\d{3})+|\d(?:,\d{3}){2,}|\d{5,})(?![\w,]|\.\d)")

# (document, text) pairs that are design constants, not measurements.
NOT_FIGURES = {
    ("cli.md", "0.1 ms"), ("cli.md", "12.2 %"),
    ("client.md", "0.1 ms"), ("client.md", "12.2 %"), ("client.md", "10 µs"),
    ("protocol.md", "12.2 %"), ("protocol.md", "0.1 ms"),
    ("web.md", "0.1 ms"),
    # a check step's bound on the server's CPU (lua/check.lua STEP_S)
    ("cli.md", "0.3 ms"), ("client.md", "0.3 ms"), ("operations.md", "0.3 ms"),
    ("protocol.md", "0.3 ms"),
    ("workers.md", "50 ms"), ("workers.md", "20 ms"), ("workers.md", "1 ms"),
    ("workers.md", "10 ms"), ("workers.md", "5 ms"),
}
# Numbers of five or more digits that are counts of things, not measurements.
COUNTS = {"1,000,000", "1000000", "100,000", "10,000", "20,000", "86400",
          "50,000"}  # jobs-history-count's default


def _figures(text: str) -> list[str]:
    return [m.group(0) for m in WITH_UNIT.finditer(text)]


def _big_numbers(text: str) -> set[str]:
    return {m.group(0) for m in BIG.finditer(text)}


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_the_checks_find_figures_and_leave_other_numbers_alone() -> None:
    text = f"costs 120 µs (101{DASH}137), 4,965 jobs/s and 0.84 / 2.5 ms; 0.43{TIMES}, 5.8x"
    assert _figures(text) == ["120 µs", "4,965 jobs/s", "0.84 / 2.5 ms", f"0.43{TIMES}", "5.8x"]
    assert _figures("83-107 µs, 593,419 instructions, about 40 % of it") == [
        "83-107 µs", "593,419 instructions", "40 %"]
    assert _figures("port 6379, 2 s, 30 s, 5 processes, 16 jobs, python3.11") == []
    assert _big_numbers("593,419 per job, 1,000 jobs, 12345 and 1.5") == {"593,419", "12345"}
    assert _anchor("The fine histograms' cost") == "the-fine-histograms-cost"


def test_every_exception_is_still_needed() -> None:
    stale = [(name, text) for name, text in sorted(NOT_FIGURES)
             if text not in _figures((ROOT / "docs" / name).read_text())]
    assert stale == [], "NOT_FIGURES lists text no document has any more"


def test_no_other_document_states_a_measured_figure() -> None:
    found = [f"{doc.relative_to(ROOT)}: {figure}" for doc in OTHERS
             for figure in _figures(doc.read_text())
             if (doc.name, figure) not in NOT_FIGURES]
    assert found == [], ("measured figures belong in docs/performance.md (link to its "
                         "section instead), or in NOT_FIGURES if they are design constants")


def test_no_other_document_repeats_a_large_number_of_performance_md() -> None:
    measured = _big_numbers(PERFORMANCE.read_text()) - COUNTS
    found = [f"{doc.relative_to(ROOT)}: {number}" for doc in OTHERS
             for number in sorted(_big_numbers(doc.read_text()) & measured)]
    assert found == [], "state it in docs/performance.md only, and link there"


def test_links_to_performance_md_name_its_sections() -> None:
    text = PERFORMANCE.read_text()
    anchors = {_anchor(line.lstrip("#")) for line in text.splitlines()
               if line.startswith("#")}
    links = [("performance.md", a) for a in re.findall(r"\]\(#([\w-]+)\)", text)]
    links += [(doc.name, a) for doc in OTHERS
              for a in re.findall(r"performance\.md#([\w-]+)\)", doc.read_text())]
    assert links, "the check found no links at all"
    assert [(doc, a) for doc, a in links if a not in anchors] == []
