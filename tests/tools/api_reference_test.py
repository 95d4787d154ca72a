#!/usr/bin/env python3
"""tools/api-reference.py reads what it must from a header: each public call
with its signature on one line and the comment that says what it does (the one
directly above it, its trailing comment, or the comment of the declarations it
follows), and nothing private, detailed or deleted. Its --check mode fails for
a page that differs from the headers and names, by header and line, each public
call without a comment. The last tests copy the project's own headers.

usage: tests/tools/api_reference_test.py ROOT
"""
import importlib.util
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(sys.argv.pop(1) if len(sys.argv) > 1 else ".").resolve()
TOOL = ROOT / "tools" / "api-reference.py"

spec = importlib.util.spec_from_file_location("api_reference", TOOL)
api = importlib.util.module_from_spec(spec)
spec.loader.exec_module(api)

HEADER = '''\
// Widget<T>: a thing made for the test. A second sentence the class row leaves out.
#pragma once

#include <vector>

#define TOPOS_WIDGET(x) x

namespace topos {

namespace detail {
// Not public.
int hidden();
}  // namespace detail

// The options of a widget.
struct WidgetOptions {
    double rate = 0.5;  // how fast
    bool on = true;
    std::function<void(int)> changed;
};

template <Element T>
class Widget {
public:
    // Makes one.
    explicit Widget(WidgetOptions options = {}) : options_(options), sizes_{{1, 2}} {}
    Widget(const Widget&) = delete;
    Widget(Widget&&) noexcept = default;
    ~Widget() = default;

    // Sizes, along
    // several lines.
    [[nodiscard]] std::vector<int> sizes(int first,
                                         int last = 3) const;

    // Grouped: these two.
    int a() const;
    int b() const;

    int c() const;  // trailing words

    // Whether it is on.
    explicit operator bool() const;

    // Counts a range.
    template <class R>
    requires(!Element<R>) && requires(const R& r) {
        r.size();
    }
    static int count(const R& range) {
        return static_cast<int>(range.size());
    }

    friend bool operator==(const Widget&, const Widget&) = default;

    int undocumented() const;

    int internal_() const;

private:
    // Private.
    int secret() const;

    WidgetOptions options_;
    std::vector<int> sizes_;
};

// Adds widgets.
template <Element T>
Widget<T> operator+(const Widget<T>& a, const Widget<T>& b);

extern template class Widget<float>;

}  // namespace topos
'''


def rows(text, name="test/widget.hpp"):
    items, opening = api.parse_text(text, name)
    undocumented = []
    blocks = api.blocks_of(items, opening, name, undocumented)
    table = {signature: meaning for _, block in blocks for signature, meaning, _ in block}
    return table, [line for _, line in sorted(undocumented)]


def check(root, page):
    result = subprocess.run([sys.executable, str(TOOL), str(root), "--check", str(page)],
                            capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


class Parser(unittest.TestCase):
    def setUp(self):
        self.table, self.undocumented = rows(HEADER)

    def test_signatures_on_one_line_without_bodies_or_initialisers(self):
        self.assertIn("explicit Widget(WidgetOptions options = {})", self.table)
        self.assertIn("[[nodiscard]] std::vector<int> sizes(int first, int last = 3) const",
                      self.table)
        self.assertIn("template <class R> requires(!Element<R>) && requires(const R& r) "
                      "{ r.size(); } static int count(const R& range)", self.table)
        self.assertIn("Widget<T> operator+(const Widget<T>& a, const Widget<T>& b)", self.table)
        self.assertIn("friend bool operator==(const Widget&, const Widget&) = default",
                      self.table)

    def test_meanings_from_the_comments(self):
        self.assertEqual(self.table["class Widget"], "Widget<T>: a thing made for the test.")
        self.assertEqual(self.table["explicit Widget(WidgetOptions options = {})"], "Makes one.")
        self.assertEqual(
            self.table["[[nodiscard]] std::vector<int> sizes(int first, int last = 3) const"],
            "Sizes, along several lines.")
        self.assertEqual(self.table["int a() const"], "Grouped: these two.")
        self.assertEqual(self.table["int b() const"], "Grouped: these two.")
        self.assertEqual(self.table["int c() const"], "trailing words")
        self.assertEqual(self.table["explicit operator bool() const"], "Whether it is on.")
        self.assertEqual(self.table["template <class R> requires(!Element<R>) && requires("
                                    "const R& r) { r.size(); } static int count(const R& range)"],
                         "Counts a range.")
        self.assertEqual(
            self.table["struct WidgetOptions { double rate = 0.5; bool on = true; "
                       "std::function<void(int)> changed; }"],
            "The options of a widget.")

    def test_leaves_out_what_a_user_does_not_call(self):
        signatures = " ".join(self.table)
        for absent in ("hidden", "secret", "internal_", "Widget(const Widget&)", "Widget&&",
                       "~Widget", "TOPOS_WIDGET", "extern"):
            self.assertNotIn(absent, signatures)

    def test_names_each_public_call_without_a_comment(self):
        self.assertEqual(len(self.undocumented), 2, self.undocumented)
        self.assertRegex(self.undocumented[0], r"^include/topos/test/widget.hpp:\d+ "
                                               r"Widget::operator==$")
        self.assertRegex(self.undocumented[1], r"^include/topos/test/widget.hpp:\d+ "
                                               r"Widget::undocumented$")

    def test_first_sentence_of_a_long_comment(self):
        long = "The first sentence, short. " + "Then words " * 20 + "end."
        self.assertEqual(api.meaning_of([long]), "The first sentence, short.")
        heading = "Layout. The same elements in another shape. " + "More words. " * 20
        self.assertEqual(api.meaning_of([heading]), "Layout. The same elements in another shape.")


class Check(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.folder.name)
        shutil.copytree(ROOT / "include", self.root / "include")
        self.page = self.root / "api.md"
        self.page.write_text(subprocess.run([sys.executable, str(TOOL), str(self.root)],
                                            capture_output=True, text=True, check=True).stdout)

    def tearDown(self):
        self.folder.cleanup()

    def test_passes_the_page_the_headers_give(self):
        status, output = check(self.root, self.page)
        self.assertEqual(status, 0, output)
        self.assertIn("matches the headers", output)

    def test_refuses_a_page_that_differs_saying_how_to_regenerate(self):
        self.page.write_text(self.page.read_text().replace("The number of axes.", "Axes."))
        status, output = check(self.root, self.page)
        self.assertEqual(status, 1, output)
        self.assertIn("is out of date", output)
        self.assertIn("tools/api-reference.py . >", output)

    def test_refuses_a_public_call_without_a_comment_naming_header_and_line(self):
        header = self.root / "include/topos/core/shape.hpp"
        text = header.read_text()
        header.write_text(text.replace("    std::string str() const;",
                                       "    std::string str() const;\n\n    int fresh() const;"))
        line = header.read_text().splitlines().index("    int fresh() const;") + 1
        status, output = check(self.root, self.page)
        self.assertEqual(status, 1, output)
        self.assertIn(f"include/topos/core/shape.hpp:{line} Shape::fresh", output)


if __name__ == "__main__":
    unittest.main()
