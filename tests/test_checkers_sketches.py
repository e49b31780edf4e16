"""Module 06's checkers beyond the mutation table (tests/checker_tables/sketches.py): the
pass line of 6.4 reports the empty-stream experiment with the student's function."""
from checker_tables.sketches import debias
from panpriv_teach.exercises import sketches as check


def test_debiasing_reports_the_empty_stream_experiment(capsys):
    check.exercise_6_4(debias, strict=True)
    out = capsys.readouterr().out
    assert "on the empty stream" in out and "over 400 runs" in out
