"""Bilingual text: every user-facing sentence exists in Korean and English, side by side.

``bilingual`` is the one place the two languages are joined into one text: "통과 / passed" on one line (a
label, a table's cell, a verdict), or Korean above English (``str(Msg)``, a sentence of its own).
"""

from __future__ import annotations

from dataclasses import dataclass

ONE_LINE = " / "  # between the Korean and the English of one line: "통과 / passed"


def bilingual(value, sep: str = ONE_LINE) -> str:
    """A bilingual value (a Msg, or its {ko, en} record) as one text, Korean first: "통과 / passed". ``sep``
    "\n" puts the English on a line of its own; a narrow table's header takes "/" ("호스트/host")."""
    if isinstance(value, dict):
        ko, en = value.get("ko") or "", value.get("en") or ""
    else:
        ko, en = value.ko, value.en
    return f"{ko}{sep}{en}"


@dataclass(frozen=True)
class Msg:
    """One message in both languages. ``str()`` shows Korean first, then English, as the course does."""

    ko: str
    en: str

    def __str__(self) -> str:
        return bilingual(self, "\n")

    def as_dict(self) -> dict[str, str]:
        return {"ko": self.ko, "en": self.en}

    @classmethod
    def join(cls, sep: str, items: "list[Msg]") -> "Msg":
        """The items joined by ``sep``, each language with its own."""
        return cls(sep.join(m.ko for m in items), sep.join(m.en for m in items))

    @classmethod
    def verbatim(cls, text: str) -> "Msg":
        """Text that reads the same in both languages because it is not a sentence (a file's line as written, a
        step's label, a value): never a catalog entry, which holds sentences."""
        return cls(text, text)

    @classmethod
    def of_dict(cls, said: dict | None) -> "Msg":
        """A message recorded as {ko, en} (Msg.as_dict), read back."""
        return cls((said or {}).get("ko", ""), (said or {}).get("en", ""))

    def __add__(self, other: "Msg") -> "Msg":
        return Msg(f"{self.ko} {other.ko}".strip(), f"{self.en} {other.en}".strip())

    def then(self, other: "Msg") -> "Msg":
        """This sentence, then ``other`` as a sentence of its own. A catalog fix starts in lower case, since it is
        shown after "fix:"; said after another sentence, its English starts with a capital (Korean has none)."""
        return self + other.capitalized()

    def capitalized(self) -> "Msg":
        """Its English with a capital first letter (a heading, a sentence of its own); Korean has none."""
        return Msg(self.ko, self.en[:1].upper() + self.en[1:])




def display_width(text: str) -> int:
    """Terminal columns: Hangul (and other wide characters) take two, so Korean tables stay aligned."""
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
