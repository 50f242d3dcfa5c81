"""Every rule a tool can emit has a section in docs/rules.md (the diagnostics link there)."""
import re
from pathlib import Path

from kernelpro.profilers.tools import load_builtin

DOC = Path(__file__).resolve().parent.parent / "docs" / "rules.md"


def test_every_rule_is_documented():
    headings = set(re.findall(r"^#{2,3} ([a-z0-9-]+)\s*$", DOC.read_text(), re.M))
    rules = {r for t in load_builtin().values() for r in t.rules}
    assert len(rules) >= 18
    missing = rules - headings
    assert not missing, f"rules without a section in docs/rules.md: {sorted(missing)}"


def test_every_tool_has_a_description_a_model_can_use():
    for t in load_builtin().values():
        assert len(t.description.split()) >= 15, t.name
        assert t.to_openai()["function"]["name"] == t.name
