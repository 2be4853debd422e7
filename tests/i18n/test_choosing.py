"""Choosing the language: the terminal's locale, Accept-Language, a setting in code."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from mcp_elicit import i18n
from mcp_elicit.i18n import choosing


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh-Hans"),
        ({"LANG": "zh_SG.UTF-8"}, "zh-Hans"),
        ({"LANG": "zh_CN"}, "zh-Hans"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "POSIX"}, "en"),
        ({}, "en"),
        # zh_TW is Traditional Chinese, which has no catalog: English, not Simplified.
        ({"LANG": "zh_TW.UTF-8"}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),
        # POSIX order: LC_ALL, then LC_MESSAGES, then LANG; an empty one is skipped.
        ({"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),
        ({"LC_ALL": "", "LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US"}, "zh-Hans"),
        ({"LC_MESSAGES": "C", "LANG": "zh_CN.UTF-8"}, "en"),
        ({"LANG": "zh_CN.UTF-8@stroke"}, "zh-Hans"),
    ],
)
def test_the_terminals_locale(environ: dict[str, str], expected: str) -> None:
    assert i18n.from_environment(environ) == expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh-Hans"),
        ("zh", "zh-Hans"),
        ("zh-Hans-SG", "zh-Hans"),
        ("en-GB,zh-CN;q=0.5", "en"),
        # Quality wins over order; q=0 means "not this".
        ("en;q=0.2, zh-CN;q=0.9", "zh-Hans"),
        ("zh-CN;q=0, en", "en"),
        ("zh-TW, zh-CN;q=0.5", "zh-Hans"),
        ("fr, de", "en"),
        ("*", "en"),
        ("", "en"),
        ("garbage;;;q=x,,", "en"),
    ],
)
def test_accept_language(header: str, expected: str) -> None:
    assert i18n.negotiate(header) == expected


def test_accept_language_falls_back_to_the_default_given() -> None:
    assert i18n.negotiate("fr", default="zh-Hans") == "zh-Hans"
    assert i18n.negotiate(None, default="zh-Hans") == "zh-Hans"


def test_a_language_without_a_catalog_is_refused_naming_the_languages() -> None:
    with pytest.raises(ValueError, match=r"'fr'.*en, zh-Hans"):
        i18n.set_language("fr")
    with pytest.raises(ValueError, match="not a language tag"):
        i18n.catalogs.tag_of("no such thing!")


def test_the_language_is_per_context() -> None:
    seen: dict[str, str] = {}

    async def speak(tag: str) -> None:
        with i18n.language(tag):
            await asyncio.sleep(0.01)  # the other task runs meanwhile, in its own language
            seen[tag] = i18n.current_language()

    async def both() -> None:
        await asyncio.gather(speak("zh-Hans"), speak("en"))

    asyncio.run(both())
    assert seen == {"zh-Hans": "zh-Hans", "en": "en"}
    assert i18n.current_language() == "en"


def test_the_process_default_and_a_block_over_it() -> None:
    try:
        assert i18n.set_default_language("zh-CN") == "zh-Hans"
        assert i18n.current_language() == "zh-Hans"
        with i18n.language("en"):
            assert i18n.current_language() == "en"
        assert i18n.current_language() == "zh-Hans"
    finally:
        i18n.set_default_language("en")


def test_dates_and_numbers_follow_the_language_answers_do_not_change() -> None:
    from datetime import date

    day = date(2026, 11, 27)
    with i18n.language("zh-Hans"):
        assert i18n.format_date(day) == "2026年11月27日"
        assert i18n.format_number(1234.5) == "1,234.5"
    with i18n.language("en"):
        assert i18n.format_date(day) == "Nov 27, 2026"
    assert day.isoformat() == "2026-11-27"


def test_match_uses_likely_subtags() -> None:
    assert choosing.match("zh") == "zh-Hans"
    assert choosing.match("zh-Hant") is None
    assert choosing.match("en-AU") == "en"


@pytest.mark.slow  # a Python process of its own per locale
@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh-Hans"),
        ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_a_program_on_the_library_follows_the_locale_by_default(
    environ: dict[str, str], expected: str
) -> None:
    """As the command line does (issue 31): a host or server built on mcp-elicit speaks the
    locale's language without calling set_default_language."""
    code = (
        "from mcp_elicit.i18n import _, current_language\n"
        "print(current_language(), _('required'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**env, **environ},
        capture_output=True,
        text=True,
        check=True,
    )
    language, word = done.stdout.split()
    assert language == expected
    assert (word == "required") is (expected == "en")
