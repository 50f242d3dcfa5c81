"""Generated blocks inside hand-written Markdown, between `<!-- NAME:begin -->` and `<!-- NAME:end -->`.

Only the text between the markers is ever rewritten, so regenerating is byte-stable and the rest of
the page stays as its authors wrote it.
"""
from __future__ import annotations

import re


def begin(name: str) -> str:
    return f"<!-- {name}:begin -->"


def end(name: str) -> str:
    return f"<!-- {name}:end -->"


def block(name: str, content: str) -> str:
    return f"{begin(name)}\n{content.strip()}\n{end(name)}"


def has_block(text: str, name: str) -> bool:
    return begin(name) in text


def replace_block(text: str, name: str, content: str, where: str = "the page") -> str:
    """The text with the block's content replaced; ValueError (one line) when the markers are missing."""
    pat = re.compile(re.escape(begin(name)) + r"\n.*?" + re.escape(end(name)), re.S)
    if len(pat.findall(text)) != 1:
        raise ValueError(f"{where}: expected one block {begin(name)} ... {end(name)}")
    return pat.sub(lambda _: block(name, content), text)
