"""One escaping function per output format, for text that came from data (names, commits,
branches, testbeds, messages quoting them).  Every writer uses these; none escapes on its own.

Pure: no I/O.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape as _html_escape
from rich.markup import escape as _rich_escape

from perfgate.model import DECEPTIVE_CHARS

# C0 and C1 controls (ESC, CR, NUL, ...), bidi overrides and isolates, line/paragraph separators,
# characters that display as nothing (as ``perfgate.model`` refuses in names: a name stored
# before it did, or a message quoting a refused one, shows "a\u200bb", not a look-alike of "ab"),
# and lone surrogates (which no UTF-8 output can even encode).  ZWNJ / ZWJ are text, kept.
_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f{DECEPTIVE_CHARS}\ud800-\udfff]")
_UNSAFE_KEEP_NEWLINE = re.compile(f"[\x00-\x09\x0b-\x1f\x7f-\x9f{DECEPTIVE_CHARS}\ud800-\udfff]")


def _visible(m: re.Match) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object, *, keep_newlines: bool = False) -> str:
    """``text`` with every control / invisible formatting character shown as ``\\xNN`` / ``\\uNNNN``."""
    return (_UNSAFE_KEEP_NEWLINE if keep_newlines else _UNSAFE).sub(_visible, str(text))


# --- terminal ------------------------------------------------------------------------------------

def terminal(text: object, *, keep_newlines: bool = False) -> str:
    """For ``rich`` ``print``/tables: no escape sequence reaches the terminal, no ``[..]`` is markup."""
    s = visible(text, keep_newlines=keep_newlines)
    # rich doubles a trailing backslash (it would escape markup that follows); a word joiner
    # after it keeps the following markup safe and the backslash shown once.  The same joiner
    # between a backslash and "[": rich read "\\[" not followed by a tag as an escaped bracket
    # and dropped the backslash (found by the fuzz test).
    s = s.replace("\\[", "\\\u2060[")
    return _rich_escape(s + "\u2060" if s.endswith("\\") else s)


def terminal_plain(text: object) -> str:
    """For plain ``print`` (no markup): escape sequences shown, line breaks kept."""
    return visible(text, keep_newlines=True)


# --- Markdown (GitHub-flavoured) -------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|~=-])")
# What GitHub turns into a notification or a link even in plain text.
_MENTION = re.compile(r"([@#])(?=[\w-])")
_AUTOLINK = re.compile(r"(?i)(://|www\.)")


def markdown_text(text: object) -> str:
    """Inline Markdown prose showing ``text`` literally: no emphasis, link, image, HTML, heading,
    table cell break, @mention or autolink can come from it; one line."""
    s = visible(text).replace("&", "&amp;")
    s = _MD_SPECIAL.sub(r"\\\1", s)
    # A word joiner (U+2060) after '@' keeps the text readable but is not a mention to GitHub.
    s = _MENTION.sub("\\1\u2060", s)
    return _AUTOLINK.sub(lambda m: m.group()[0] + "\u2060" + m.group()[1:], s)


def markdown_code(text: object, *, table: bool = True) -> str:
    """An inline code span holding ``text`` whatever it contains (backticks, newlines, pipes):
    the fence is longer than any backtick run inside, line breaks and controls are made visible,
    and in a table ``|`` is escaped so the cell survives (GFM strips that backslash inside code)."""
    s = visible(text)
    if table:
        s = s.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith(("`", " ")) or s.endswith(("`", " ")) or not s else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def markdown_block(text: object) -> str:
    """A fenced code block holding ``text`` literally, line breaks kept: nothing inside a fence is
    a link, mention or HTML to GitHub, and the fence is longer than any backtick run inside, so no
    line of ``text`` can close it."""
    s = visible(text, keep_newlines=True)
    longest = max((len(run) for run in re.findall(r"`+", s)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{s}\n{fence}"


# --- Slack-style text (webhooks) -----------------------------------------------------------------

_SLACK_FORMAT = re.compile(r"([*_~`])")


def slack_text(text: object) -> str:
    """Text in a Slack ``mrkdwn`` message: ``& < >`` escaped as Slack requires (so no ``<!here>``,
    ``<@U123>`` or ``<url|text>`` can come from data), formatting characters made inert with a
    word joiner (U+2060), controls made visible."""
    s = visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SLACK_FORMAT.sub("\u2060\\1\u2060", s)


def slack_code(text: object) -> str:
    """A name in a Slack ``mrkdwn`` message as inline code: shown literally, so it copies as it is
    (word joiners would travel with a pasted name); one holding a backtick cannot be a code span
    and is :func:`slack_text` instead."""
    s = visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f"`{s}`" if s and "`" not in s and "\n" not in s else slack_text(text)


# --- HTML / XML ------------------------------------------------------------------------------------

def html_text(text: object) -> Markup:
    """Text and attribute values in HTML: ``& < > " '`` escaped, controls made visible.
    Markup (already safe, e.g. perfgate's own SVG) is kept as it is."""
    if isinstance(text, Markup):
        return text
    return _html_escape(visible(text))


# XML 1.0 allows only tab, LF, CR and these ranges; anything else makes the document ill-formed.
_XML_ILLEGAL = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: object) -> Markup:
    """Text and attribute values in XML: escaped, and characters XML 1.0 cannot hold shown as
    ``\\xNN`` so the document stays well-formed whatever the data."""
    if isinstance(text, Markup):
        return text
    s = visible(text)
    return _html_escape(_XML_ILLEGAL.sub(lambda m: f"\\u{ord(m.group()):04x}", s))


# --- CSV -------------------------------------------------------------------------------------------

_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(text: object) -> str:
    """A CSV text cell (the ``csv`` module does the quoting): controls made visible, and a cell
    a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``) prefixed with ``'``."""
    if text is None:
        return ""
    s = visible(text)
    return "'" + s if s.startswith(_FORMULA) else s
