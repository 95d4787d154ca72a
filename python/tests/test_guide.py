"""docs/guide/python.md: every snippet runs, and prints what the page says."""
import doctest
import os
import pathlib

source = pathlib.Path(os.environ["TOPOS_SOURCE_DIR"])


def test_every_snippet_of_the_python_guide_prints_what_the_page_shows():
    failed, attempted = doctest.testfile(
        str(source / "docs/guide/python.md"), module_relative=False,
        globs={"DIGITS": str(source / "data/digits.csv")},
        optionflags=doctest.ELLIPSIS)
    assert attempted > 30
    assert failed == 0
