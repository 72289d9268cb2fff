"""Bilingual text: every user-facing sentence exists in Korean and English, side by side."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Msg:
    """One message in both languages. ``str()`` shows Korean first, then English, as the course does."""

    ko: str
    en: str

    def __str__(self) -> str:
        return f"{self.ko}\n{self.en}"

    def as_dict(self) -> dict[str, str]:
        return {"ko": self.ko, "en": self.en}

    def __add__(self, other: "Msg") -> "Msg":
        return Msg(f"{self.ko} {other.ko}".strip(), f"{self.en} {other.en}".strip())


def msg(ko: str, en: str) -> Msg:
    return Msg(ko, en)


def display_width(text: str) -> int:
    """Terminal columns: Hangul (and other wide characters) take two, so Korean tables stay aligned."""
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
