"""Accessibility checks for the browser tests: axe-core, contrast of drawn states, focus.

- ``audit(page, label)`` runs the vendored axe-core (``vendor/axe.min.js``, never a CDN;
  ``new_page`` in conftest.py adds it to every document as an init script, which the
  pages' Content-Security-Policy does not block) with every rule it has. Violations
  of impact moderate, serious or critical fail (``failing``); minor ones are kept in
  ``FINDINGS`` and listed at the end of the run (``pytest_terminal_summary`` in
  ``conftest.py``).
- ``drawn_states(page)`` reads the colours of the pictures the sheets draw (bars, pips,
  tokens, cards, condition boxes, timeline dots) and ``graphic_problems`` checks them
  against WCAG 2.2 AA: 3:1 for graphics against what surrounds them (1.4.11), 4.5:1 for
  the words and numbers drawn on them (1.4.3), and that no state is told by colour
  alone (1.4.1).
- ``contrast(a, b)`` is the WCAG contrast ratio of two colours.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE_VERSION = "4.14.1"
AXE_PATH = Path(__file__).parent / "vendor" / "axe.min.js"
FAILING_IMPACTS = ("moderate", "serious", "critical")
GRAPHIC_MIN = 3.0  # WCAG 1.4.11 non-text contrast
TEXT_MIN = 4.5  # WCAG 1.4.3 for normal-size text


@dataclass(frozen=True)
class Violation:
    rule: str
    impact: str
    help: str
    targets: tuple[str, ...]

    def __str__(self) -> str:
        where = ", ".join(self.targets[:4]) + (" ..." if len(self.targets) > 4 else "")
        return f"{self.rule} ({self.impact}): {self.help} [{len(self.targets)}: {where}]"


@dataclass
class Findings:
    """Every audit of the run: how many, and the minor violations to list at the end."""

    audits: int = 0
    labels: set[str] = field(default_factory=set)
    minor: dict[str, list[str]] = field(default_factory=dict)

    def record(self, label: str, violations: list[Violation]) -> None:
        self.audits += 1
        self.labels.add(label)
        for violation in violations:
            if violation.impact not in FAILING_IMPACTS:
                key = f"{violation.rule} ({violation.impact}): {violation.help}"
                self.minor.setdefault(key, []).append(f"{label}: {', '.join(violation.targets)}")

    def as_data(self) -> dict[str, Any]:
        """What a suite's worker (pytest-xdist) hands back to the main process."""
        return {"audits": self.audits, "labels": sorted(self.labels), "minor": self.minor}

    def add(self, data: dict[str, Any]) -> None:
        """A worker's findings, added to these."""
        self.audits += int(data["audits"])
        self.labels.update(data["labels"])
        for key, labels in data["minor"].items():
            self.minor.setdefault(key, []).extend(labels)


FINDINGS = Findings()


SCRIPTS = Path(__file__).parent / "js"


def script(name: str) -> str:
    """A function to evaluate in the page, from ``js/<name>`` (its header comment left out)."""
    text = (SCRIPTS / name).read_text(encoding="utf-8")
    return text.split("*/", 1)[1].strip() if text.startswith("/*") else text


def _axe_source() -> str:
    return AXE_PATH.read_text(encoding="utf-8")


def axe_banner_version() -> str:
    match = re.match(r"/\*! axe v(\S+)", _axe_source())
    return match.group(1) if match else ""


# The rules whose answer can change when only colours change (the dark theme).
COLOUR_RULES = ("color-contrast", "link-in-text-block")


def audit(page: Page, label: str, *, only: tuple[str, ...] = ()) -> list[Violation]:
    """Run axe-core on the page as it is now (every rule, or ``only`` these); every
    violation, recorded in FINDINGS."""
    # conftest's new_page adds axe to every document before the page's own scripts
    assert page.evaluate("() => typeof window.axe === 'object'"), "axe-core is not loaded"
    raw: list[dict[str, Any]] = page.evaluate(
        """async (only) => {
          const options = {resultTypes: ["violations"]};
          if (only.length) options.runOnly = only;
          const result = await axe.run(document, options);
          return result.violations.map((v) => ({
            rule: v.id, impact: v.impact || "minor", help: v.help,
            targets: v.nodes.map((n) => n.target.join(" ")),
          }));
        }""",
        list(only),
    )
    violations = [
        Violation(item["rule"], item["impact"], item["help"], tuple(item["targets"]))
        for item in raw
    ]
    FINDINGS.record(label, violations)
    return violations


_LAYOUT_JS = script("layout.js")


def layout(page: Page) -> str:
    """Where every element is, how big, and whether it shows: equal for two themes when
    the theme changes nothing but colours."""
    found: str = page.evaluate(_LAYOUT_JS)
    return found


def failing(violations: list[Violation]) -> list[Violation]:
    return [v for v in violations if v.impact in FAILING_IMPACTS]


# -- colours -------------------------------------------------------------------------------

RGB = tuple[float, float, float]
_COLOUR = re.compile(r"rgba?\(([^)]*)\)|color\(srgb ([^)]*)\)")


def colours(css: str) -> list[tuple[float, float, float, float]]:
    """Every colour in a computed CSS value (rgb(), rgba(), color(srgb ...)), 0-255 + alpha."""
    found = []
    for match in _COLOUR.finditer(css):
        if match.group(1) is not None:
            parts = [p for p in re.split(r"[\s,/]+", match.group(1).strip()) if p]
            r, g, b = (float(p) for p in parts[:3])
            alpha = float(parts[3]) if len(parts) > 3 else 1.0
        else:
            parts = [p for p in re.split(r"[\s/]+", match.group(2).strip()) if p]
            r, g, b = (float(p) * 255 for p in parts[:3])
            alpha = float(parts[3]) if len(parts) > 3 else 1.0
        found.append((r, g, b, alpha))
    return found


def over(top: tuple[float, float, float, float], below: RGB) -> RGB:
    """A colour with alpha painted over an opaque one."""
    r, g, b, alpha = top
    return (
        r * alpha + below[0] * (1 - alpha),
        g * alpha + below[1] * (1 - alpha),
        b * alpha + below[2] * (1 - alpha),
    )


def luminance(colour: RGB) -> float:
    def channel(value: float) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    """The WCAG contrast ratio, 1 to 21."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


# -- drawn states --------------------------------------------------------------------------

# What each picture is, what paints it and what it must stand out from.
#   paint: "fill" (background colour or every stop of a gradient), "border" (the outline
#   that draws an empty slot or a box's state edge), "svg" (an icon's fill), "color" (an
#   icon drawn in currentColor), "stroke"
#   (an SVG line), "before" (a ::before dot's border).
#   against: "parent" (the colour behind the element), "self" (the element's own
#   background, for a coloured edge of a box), "box" (the fill of the SVG box the mark
#   is drawn in, else what is behind the picture).
GRAPHICS: tuple[tuple[str, str, str, str], ...] = (
    ("hp, wound and score bars", ".bar-fill", "fill", "parent"),
    ("filled pips (fatigue, marks, ranks, stamina, disease saves)", ".pip.on", "fill", "parent"),
    ("empty pips", ".pip:not(.on)", "border", "parent"),
    ("harm and wound tokens", ".token:not(.is-off)", "fill", "parent"),
    ("empty token slots", ".token.is-off", "border", "parent"),
    ("cards (face, back, exhausted, empty slot)", ".dk-card", "border", "parent"),
    ("card backs", ".dk-card.is-back", "fill", "parent"),
    ("the stamina bolt on a card", ".bolt", "svg", "parent"),
    ("party card state edge", ".pc-card", "border-top", "parent"),
    ("condition and wound boxes' state edge", ".cond, .wound", "border-left", "self"),
    ("condition and wound chips' state edge", "[class*='chip-']", "border-left", "self"),
    ("timeline dots", ".tl-item", "before", "parent"),
    ("waiting dot", ".dot", "fill", "parent"),
    ("dice", ".die.kept", "fill", "parent"),
    ("battle units' state edge", ".units .unit, .after-list .after", "border-left", "self"),
    ("battle state icons", ".unit .icon, .after .icon", "color", "parent"),
    ("drawn boxes (SVG)", "svg[role=img] rect", "stroke", "parent"),
    ("marks drawn in boxes (SVG)", "svg[role=img] line, svg[role=img] path", "stroke", "box"),
)
# Words and numbers drawn on a coloured shape: axe skips most of them (they sit inside a
# picture hidden from assistive technology, which speaks its label instead), so their
# contrast against the shape is computed here.
DRAWN_TEXT: tuple[tuple[str, str], ...] = (
    ("dice faces", ".die"),
    ("token letters", ".token"),
    ("card numbers", ".dk-card .dk-id"),
    ("meter values", ".meter-value"),
    ("meter labels", ".meter-label"),
    ("pile names", ".dk-pile-name"),
    ("ability names and values", ".os-ability .os-ab-name, .os-ability .os-ab-val"),
)

_READ_JS = script("drawn_states.js")


def _grounds(layers: list[str]) -> list[RGB]:
    """The colours a picture sits on, from its ancestors' backgrounds (innermost first):
    their background colours composited, or, when the nearest painted ancestor draws a
    gradient or stripes, each of its stops over that."""
    base: RGB = (255.0, 255.0, 255.0)
    for layer in reversed(layers):
        for colour in colours(layer)[:1]:
            base = over(colour, base)
    for layer in layers:
        found = colours(layer)
        if len(found) > 1:
            return [over(stop, base) for stop in found[1:]]
        if found and found[0][3] > 0:
            break
    return [base]


@dataclass(frozen=True)
class Problem:
    check: str
    what: str
    ratio: float
    needed: float

    def __str__(self) -> str:
        return f"{self.check}: {self.what} has {self.ratio:.2f}:1, needs {self.needed}:1"


def drawn_states(page: Page) -> dict[str, list[dict[str, Any]]]:
    result: dict[str, list[dict[str, Any]]] = page.evaluate(
        _READ_JS, [list(GRAPHICS), list(DRAWN_TEXT)]
    )
    return result


def graphic_problems(drawn: dict[str, list[dict[str, Any]]]) -> list[Problem]:
    """Every drawn shape below 3:1 against its surroundings, every drawn word below 4.5:1."""
    problems = []
    for shape in drawn["shapes"]:
        if shape["lineStyle"] == "none" or shape["width"] <= 0:
            continue
        grounds = _grounds(shape["background"])
        painted = [c for c in colours(shape["painted"]) if c[3] > 0]
        if not painted:
            problems.append(Problem(shape["name"], shape["what"], 1.0, GRAPHIC_MIN))
            continue
        ratio = min(contrast(over(c, ground), ground) for c in painted for ground in grounds)
        if ratio < GRAPHIC_MIN:
            problems.append(Problem(shape["name"], shape["what"], ratio, GRAPHIC_MIN))
    for word in drawn["words"]:
        grounds = _grounds(word["background"])
        colour = colours(word["color"])[0]
        ratio = min(contrast(over(colour, ground), ground) for ground in grounds)
        if ratio < TEXT_MIN:
            problems.append(Problem(word["name"], word["what"], ratio, TEXT_MIN))
    return problems


# -- state never by colour alone ------------------------------------------------------------

_NOT_BY_COLOUR_JS = script("colour_only.js")


def colour_only_states(page: Page) -> list[str]:
    """States on the page told by colour alone (WCAG 1.4.1): each with its markup."""
    found: list[str] = page.evaluate(_NOT_BY_COLOUR_JS)
    return found
