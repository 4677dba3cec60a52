from __future__ import annotations

import datetime as dt

from gitflow_harness.learning.request_names import NAME_MAX, file_name, name_problem, request_id


def test_a_request_is_named_after_its_day_and_pill_key() -> None:
    day = dt.date(2026, 11, 30)
    assert file_name("implementer/parser") == "implementer__parser"
    assert request_id(day, "implementer/parser", 0) == "2026-11-30-implementer__parser"
    assert request_id(day, "implementer/parser", 1) == "2026-11-30-implementer__parser-again"
    assert request_id("2026-11-30", "shared/x", 2) == "2026-11-30-shared__x-again-2"


def test_a_pill_key_too_long_for_its_longest_request_name_says_by_how_much() -> None:
    # `YYYY-MM-DD-` + name + `-again-999.md` is 24 bytes beyond the name.
    fits = "implementer/" + "s" * (NAME_MAX - 24 - len("implementer__"))
    assert name_problem(fits) is None
    problem = name_problem(fits + "é")  # two bytes in UTF-8
    assert problem is not None
    assert problem.endswith(
        f"up to {NAME_MAX + 2} bytes, over the {NAME_MAX} a file name may "
        "have): shorten the slug by 2 bytes"
    )
