"""C/C++ translation phases 1-3 in Python, as GCC's preprocessor (nvcc's) sees a model's source.

The answer police (police.py) works on what the preprocessor will see, not on the text as
written: a `#inc\\<newline>lude`, a `#/*<newline>*/include`, a `%:include` and a
`#include <x//y>` all mean something else to a regex than to nvcc.

- phase 1: line endings normalised (CR LF and lone CR become LF); trigraphs are refused (GCC
  ignores them in its default GNU modes, replaces them in strict ISO modes: which one nvcc
  runs is not ours to guess);
- phase 2: backslash-newline removed, also with spaces or tabs between them (GCC splices those
  too, with a warning); every character keeps the physical line it came from;
- phase 3: preprocessing tokens (identifiers, pp-numbers with digit separators, character and
  string literals with their prefixes, raw strings, punctuators, header names after
  `#include`-like directive names), comments replaced by white space, digraphs read as the
  punctuators they stand for (`%:` is `#`, `%:%:` is `##`). A newline outside a comment ends a
  logical line; a newline inside a block comment does not (`#/*\\n*/include` is a directive).

`clean` is the spliced text with comments blanked (newlines kept) and digraphs written as
their punctuators, padded to the same length; `code` is `clean` with the contents of string
and character literals blanked too: both have the spliced text's offsets, so `line_at` maps
any offset of either back to the model's line.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field


class LexError(Exception):
    """The text cannot be read the way the preprocessor would; `reason` is one line."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class Token:
    kind: str  # "id", "num", "str", "chr", "header", "punct", "other"
    text: str  # after phases 1-3: a digraph is written as its punctuator
    start: int  # offsets in the spliced text
    end: int
    line: int  # the model's (physical) line of the first character
    space_before: bool = False  # white space or a comment right before it on its logical line


@dataclass
class Lexed:
    original: str
    spliced: str
    clean: str
    code: str
    tokens: list[Token]
    lines: list[list[Token]]  # logical lines (tokens between newlines outside comments)
    splices: list[int] = field(default_factory=list)  # offsets in `spliced` where a splice was removed
    _line_of: list[int] = field(default_factory=list, repr=False)  # offset -> physical line

    def line_at(self, offset: int) -> int:
        if not self._line_of:
            return 1
        return self._line_of[min(max(offset, 0), len(self._line_of) - 1)]

    def directives(self) -> list[list[Token]]:
        return [ln for ln in self.lines if ln and ln[0].text == "#"]


_TRIGRAPH = re.compile(r"\?\?[=/'()!<>\-]")
_SPLICE = re.compile(r"\\[ \t\f\v]*\n")
_PUNCT = sorted("""%:%: ... <<= >>= ->* <=> ## %: <: :> <% %> :: -> ++ -- << >> <= >= == != && || *= /= %= += -= &= ^= |= .*
{ } [ ] # ( ) ; : ? . + - * / % ^ & | ~ ! = < > ,""".split(), key=len, reverse=True)
_DIGRAPHS = {"%:%:": "##", "%:": "#", "<:": "[", ":>": "]", "<%": "{", "%>": "}"}
_STR_PREFIX = {"u8", "u", "U", "L"}
_RAW_PREFIX = {"R", "u8R", "uR", "UR", "LR"}
_INCLUDE_LIKE = {"include", "include_next", "import", "embed"}
_IDENT_START = re.compile(r"[A-Za-z_$]|[^\x00-\x7f]")
_IDENT = re.compile(r"(?:[A-Za-z0-9_$]|[^\x00-\x7f])+")
_PPNUM = re.compile(r"\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.]|[^\x00-\x7f])*")
_RAW_DELIM = re.compile(r'[^ ()\\\t\v\f\n"]{0,16}\(')


def lex(text: str) -> Lexed:
    """Phases 1-3 over `text`; raises LexError for what cannot be read safely."""
    norm = text.replace("\r\n", "\n").replace("\r", "\n")
    m = _TRIGRAPH.search(norm)
    if m:
        raise LexError(f"trigraph '{m.group(0)}' at line {norm.count(chr(10), 0, m.start()) + 1} is not allowed")
    # phase 2, keeping the physical line of every character
    pieces: list[str] = []
    line_of: list[int] = []
    splices: list[int] = []
    pos, line, out_len = 0, 1, 0
    for sm in _SPLICE.finditer(norm):
        chunk = norm[pos:sm.start()]
        pieces.append(chunk)
        for ch in chunk:
            line_of.append(line)
            if ch == "\n":
                line += 1
        out_len += len(chunk)
        splices.append(out_len)
        line += 1
        pos = sm.end()
    chunk = norm[pos:]
    pieces.append(chunk)
    for ch in chunk:
        line_of.append(line)
        if ch == "\n":
            line += 1
    line_of.append(line)  # the end of the text
    s = "".join(pieces)
    return _Scanner(text, s, line_of, splices).run()


class _Scanner:
    def __init__(self, original: str, s: str, line_of: list[int], splices: list[int]):
        self.original, self.s, self.line_of, self.splices = original, s, line_of, splices
        self.clean = list(s)
        self.code = list(s)
        self.tokens: list[Token] = []
        self.lines: list[list[Token]] = [[]]
        self.space = False

    def blank(self, a: int, b: int, code_only: bool = False) -> None:
        for i in range(a, b):
            if self.s[i] != "\n":
                self.code[i] = " "
                if not code_only:
                    self.clean[i] = " "

    def emit(self, kind: str, text: str, a: int, b: int) -> Token:
        t = Token(kind, text, a, b, self.line_of[a], self.space)
        self.space = False
        self.tokens.append(t)
        self.lines[-1].append(t)
        return t

    def line_no(self, i: int) -> int:
        return self.line_of[min(i, len(self.line_of) - 1)]

    def skip_comment(self, i: int) -> int | None:
        """The end of a comment starting at i, or None when none starts there."""
        s = self.s
        if s.startswith("//", i):
            j = s.find("\n", i)
            j = len(s) if j < 0 else j
            self.blank(i, j)
            return j
        if s.startswith("/*", i):
            j = s.find("*/", i + 2)
            j = len(s) if j < 0 else j + 2
            self.blank(i, j)
            return j
        return None

    def in_directive(self) -> bool:
        cur = self.lines[-1]
        return bool(cur) and cur[0].text == "#"

    def run(self) -> Lexed:
        s, n, i = self.s, len(self.s), 0
        while i < n:
            c = s[i]
            if c == "\n":
                if self.lines[-1]:
                    self.lines.append([])
                self.space = False
                i += 1
                continue
            if c in " \t\f\v":
                self.space = True
                i += 1
                continue
            j = self.skip_comment(i)
            if j is not None:
                self.space = True
                i = j
                continue
            if _IDENT_START.match(c):
                m = _IDENT.match(s, i)
                word = m.group(0)
                j = m.end()
                if j < n and s[j] == '"' and word in _RAW_PREFIX:
                    i = self.raw_string(i, j)
                    continue
                if j < n and s[j] in "\"'" and word in _STR_PREFIX:
                    i = self.literal(i, j)
                    continue
                self.emit("id", word, i, j)
                i = j
                if word in _INCLUDE_LIKE and len(self.lines[-1]) == 2 and self.lines[-1][0].text == "#":
                    i = self.header_name(i)
                continue
            if c.isdigit() or (c == "." and i + 1 < n and s[i + 1].isdigit()):
                m = _PPNUM.match(s, i)
                self.emit("num", m.group(0), i, m.end())
                i = m.end()
                continue
            if c in "\"'":
                i = self.literal(i, i)
                continue
            for p in _PUNCT:
                if s.startswith(p, i):
                    if p == "<:" and s.startswith("<::", i) and not s.startswith(("<:::", "<::>"), i):
                        p = "<"  # C++11: `<::` is `<` then `::` unless followed by `:` or `>`
                    text = _DIGRAPHS.get(p, p)
                    if text != p:
                        self.clean[i:i + len(p)] = list(text.ljust(len(p)))
                        self.code[i:i + len(p)] = list(text.ljust(len(p)))
                    self.emit("punct", text, i, i + len(p))
                    i += len(p)
                    break
            else:
                self.emit("other", c, i, i + 1)
                i += 1
        lines = [ln for ln in self.lines if ln]
        return Lexed(self.original, s, "".join(self.clean), "".join(self.code), self.tokens, lines,
                     self.splices, self.line_of)

    def literal(self, start: int, quote_at: int) -> int:
        """A string or character literal (prefix at start, quote at quote_at); it ends at its
        closing quote or, unterminated, at the end of the line."""
        s, n = self.s, len(self.s)
        q = s[quote_at]
        i = quote_at + 1
        while i < n and s[i] != q and s[i] != "\n":
            i += 2 if s[i] == "\\" and i + 1 < n and s[i + 1] != "\n" else 1
        closed = i < n and s[i] == q
        end = i + 1 if closed else i
        self.emit("str" if q == '"' else "chr", s[start:end], start, end)
        self.blank(quote_at + 1, i, code_only=True)  # the contents, not the quotes
        return end

    def raw_string(self, start: int, quote_at: int) -> int:
        s = self.s
        m = _RAW_DELIM.match(s, quote_at + 1)
        if m is None:
            return self.literal(start, quote_at)
        delim = m.group(0)[:-1]
        close = s.find(")" + delim + '"', m.end())
        line = self.line_no(start)
        if close < 0:
            raise LexError(f"unterminated raw string literal at line {line}")
        end = close + len(delim) + 2
        if self.in_directive() and "\n" in s[start:end]:
            raise LexError(f"raw string literal spanning lines in a directive at line {line}")
        lo = bisect.bisect_right(self.splices, start)
        if lo < len(self.splices) and self.splices[lo] < end:
            raise LexError(f"line splice inside a raw string literal at line {line}")
        self.emit("str", s[start:end], start, end)
        self.blank(m.end(), close, code_only=True)
        return end

    def header_name(self, i: int) -> int:
        """After `# include` (and include_next, import, embed): `<...>` or `"..."` read as GCC
        reads a header name (no comments or escapes inside), to the end of the line at most."""
        s, n = self.s, len(self.s)
        while i < n:
            if s[i] in " \t\f\v":
                self.space = True
                i += 1
                continue
            j = self.skip_comment(i)
            if j is None:
                break
            self.space = True
            i = j
        if i >= n or s[i] not in '<"':
            return i
        close = ">" if s[i] == "<" else '"'
        j = i + 1
        while j < n and s[j] != close and s[j] != "\n":
            j += 1
        if j < n and s[j] == close:
            j += 1
            self.emit("header", s[i:j], i, j)
            return j
        return i  # no closing: lexed as ordinary tokens (the directive is then malformed)
