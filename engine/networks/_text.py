"""A tokenizer with line numbers for the text network formats (BIF, Hugin .net, UAI)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.errors import NetworkFormatError

__all__ = ["Token", "Tokens", "tokenize"]


@dataclass(frozen=True)
class Token:
    kind: str    # "w" word or number, "q" quoted string (text without quotes), "p" punctuation
    text: str
    line: int


_PATTERNS = {
    # C and C++ comments (BIF)
    "c": r"(?P<c>//[^\n]*|/\*(?:.|\n)*?\*/)",
    # % comments (Hugin)
    "%": r"(?P<c>%[^\n]*)",
    "": r"(?P<c>(?!))",
}


def tokenize(text: str, label: str, comments: str = "c", punct: str = "{}()[];,|=") -> list[Token]:
    """Tokens of ``text`` with their line; an unterminated comment or string is an error."""
    pat = re.compile(r"(?P<ws>\s+)|" + _PATTERNS[comments] + r"|(?P<q>\"[^\"\n]*\")"
                     r"|(?P<p>[" + re.escape(punct) + r"])|(?P<w>[^\s\"" + re.escape(punct) + r"]+)")
    out: list[Token] = []
    line = 1
    pos = 0
    n = len(text)
    while pos < n:
        m = pat.match(text, pos)
        if m is None or m.end() == pos:
            ch = text[pos]
            what = "a string that never ends" if ch == '"' else \
                "a comment that never ends" if text.startswith("/*", pos) else f"the character {ch!r}"
            raise NetworkFormatError(f"{label}:{line}: {what}")
        kind = m.lastgroup
        s = m.group()
        if kind == "w" and comments == "c" and s.startswith("/*"):
            raise NetworkFormatError(f"{label}:{line}: a comment that never ends")
        if kind == "q":
            out.append(Token("q", s[1:-1], line))
        elif kind in ("p", "w"):
            out.append(Token(kind, s, line))
        line += s.count("\n")
        pos = m.end()
    return out


class Tokens:
    """A cursor over tokens with expectations that fail with ``file:line: ...``."""

    def __init__(self, tokens: list[Token], label: str):
        self.t = tokens
        self.i = 0
        self.label = label

    def error(self, msg: str, line: int | None = None) -> NetworkFormatError:
        if line is None:
            line = self.t[self.i].line if self.i < len(self.t) else (self.t[-1].line if self.t else 1)
        return NetworkFormatError(f"{self.label}:{line}: {msg}")

    def done(self) -> bool:
        return self.i >= len(self.t)

    def peek(self) -> Token | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def next(self, what: str = "more") -> Token:
        if self.i >= len(self.t):
            raise self.error(f"the file ends where {what} was expected (truncated?)")
        tok = self.t[self.i]
        self.i += 1
        return tok

    def expect(self, text: str) -> Token:
        tok = self.next(repr(text))
        if tok.kind != "p" or tok.text != text:
            raise self.error(f"expected {text!r}, found {tok.text!r}", tok.line)
        return tok

    def accept(self, text: str) -> bool:
        tok = self.peek()
        if tok is not None and tok.kind == "p" and tok.text == text:
            self.i += 1
            return True
        return False

    def name(self, what: str) -> Token:
        tok = self.next(what)
        if tok.kind == "p":
            raise self.error(f"expected {what}, found {tok.text!r}", tok.line)
        return tok

    def number(self, what: str = "a number") -> float:
        tok = self.next(what)
        try:
            if tok.kind != "w":
                raise ValueError
            return float(tok.text)
        except ValueError:
            raise self.error(f"expected {what}, found {tok.text!r}", tok.line) from None

    def scope(self, what: str) -> tuple[Token, list[Token]]:
        """The ``( child | parent, parent ... )`` head of a table block (``|`` and ``,`` between
        names are optional): the child's token and the parents' tokens."""
        self.expect("(")
        child = self.name(f"the variable of the {what}")
        parents = []
        while not self.accept(")"):
            if self.accept("|") or self.accept(","):
                continue
            parents.append(self.name("a parent"))
        return child, parents

    def block(self, what: str):
        """The entries of a ``{ ... }`` block: yields the first word of each (``what`` names it in
        errors) and leaves the rest of the entry to the caller; ends after the closing ``}``."""
        self.expect("{")
        while not self.accept("}"):
            yield self.name(what)

    def declared(self, tok: Token, index: dict[str, int], what: str, block: str, role: str = "") -> int:
        """The number of the variable ``tok`` names; an error naming ``tok``'s line if no ``block``
        declares it (``what`` is the block that names it, ``role`` what the name is there)."""
        if tok.text not in index:
            raise self.error(f"the {what} names {role + ' ' if role else ''}{tok.text!r}, which no {block} "
                             "declares", tok.line)
        return index[tok.text]

    def skip_until(self, text: str) -> None:
        """Skip tokens up to and including ``text`` at nesting depth 0 of (), {} and []."""
        depth = 0
        start = self.peek().line if self.peek() else None
        while True:
            tok = self.next(repr(text))
            if tok.kind == "p":
                if depth == 0 and tok.text == text:
                    return
                if tok.text in "({[":
                    depth += 1
                elif tok.text in ")}]":
                    depth -= 1
                    if depth < 0:
                        raise self.error(f"unbalanced {tok.text!r} (expected {text!r} first"
                                         + (f", from line {start})" if start else ")"), tok.line)
