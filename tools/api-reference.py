#!/usr/bin/env python3
"""Writes the API reference from the public headers themselves: every call a
user types (the functions, constructors, operators and types of the headers
listed in GROUPS, in their order), each with its signature as declared and one
line of meaning taken from the header's own comment directly above it.

A declaration's meaning is, in this order of preference:
  - the comment directly above it (no blank line between; of a comment with
    paragraphs, the last one), with its trailing comment after a dash;
  - its trailing comment (`int f();  // what f is`);
  - the comment of the declaration it directly follows (no blank line and no
    comment between them): a comment above several adjacent declarations
    covers them all;
  - for a class, the sentence of the header's opening comment that starts
    with its name (`Tape<T>: the notebook ...`).
Of that comment the page shows all of it when short, else its first sentence.

The parser reads the headers as tokens: it skips preprocessor lines,
`namespace detail`, `extern template` and `static_assert` lines, `using`
aliases, concepts, forward declarations, private and protected sections,
function bodies and constructor initialisers, deleted functions, destructors,
copy and move members, and members whose names end with `_`; template heads,
`requires` clauses (with requires-expressions), attributes and multi-line
declarations belong to the declaration they start. A struct's data members are
shown in its one-line declaration; a nested class is one entry.

Limits: it is not a compiler. It expands no macro (an enum whose enumerators
come from an #include shows `{ ... }`), reads angle brackets only in template
heads, takes the word after class/struct/enum as the type's name, and knows a
nested class as one entry without its members.

usage: tools/api-reference.py ROOT            print the reference
       tools/api-reference.py ROOT --check F  fail unless F holds exactly that
                                              and every public call has a comment
"""
import pathlib
import re
import sys

# (section title, headers under include/topos/, in page order). A folder named
# in COVERED must have each of its headers here, so a new one is not missed.
GROUPS = [
    ("Values, losses and compositions", [
        "graph/value.hpp", "graph/losses.hpp", "graph/compositions.hpp"]),
    ("Tapes, networks, runs, entries and plans", [
        "graph/tape.hpp", "graph/network.hpp", "graph/scope.hpp", "graph/autocast.hpp",
        "run/run.hpp",
        "run/parameters.hpp",
        "run/entry.hpp", "plan/plan.hpp", "autodiff/adjoints.hpp", "autodiff/grad.hpp"]),
    ("Tensors, shapes and bf16", ["core/tensor.hpp", "core/shape.hpp", "core/bf16.hpp"]),
    ("Modules", [
        "model/module.hpp", "model/named.hpp", "model/linear.hpp", "model/mlp.hpp",
        "model/conv2d.hpp", "model/max_pool.hpp", "model/batch_norm.hpp",
        "model/layer_norm.hpp", "model/embedding.hpp", "model/dropout.hpp",
        "model/attention.hpp", "model/transformer.hpp", "model/function.hpp",
        "model/mixed_precision.hpp",
        "model/init.hpp"]),
    ("Language models: the Llama family", [
        "model/rms_norm.hpp", "model/rotary.hpp", "model/grouped_query_attention.hpp",
        "model/swiglu.hpp", "model/llama.hpp", "model/llama_folder.hpp",
        "model/llama_generator.hpp", "model/sampling.hpp"]),
    ("Text: the SentencePiece tokenizer (topos::text)", ["text/tokenizer.hpp"]),
    ("Training: optimizers, schedules, clipping, checkpoints", [
        "model/optim.hpp", "model/schedule.hpp", "model/clip.hpp", "model/checkpoint.hpp"]),
    ("Data", [
        "data/generator.hpp", "data/batches.hpp", "data/dataset.hpp", "data/loader.hpp",
        "data/progress.hpp", "data/*"]),
    ("Training across processes (topos::distributed, on MPI)", [
        "distributed/communicator.hpp", "distributed/data_parallel.hpp"]),
    ("Reading a computation: pictures, charts, cards, reports (topos::show)", [
        "show/graph.hpp", "show/picture.hpp", "show/plot.hpp", "show/card.hpp",
        "show/report.hpp", "show/html.hpp"]),
    ("The playground language (topos::lang)", [
        "lang/program.hpp", "lang/readings.hpp", "lang/play.hpp"]),
]
COVERED = ["model", "data", "text", "distributed", "show", "lang"]

# Whole comments up to this many characters are shown whole.
SHORT = 160

# ---------------------------------------------------------------- tokens

TOKEN = re.compile(r"""
    (?P<comment>//[^\n]*)
  | (?P<block>/\*.*?\*/)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<number>\.?\d(?:[eEpP][+-]|[\w.'])*)
  | (?P<word>[A-Za-z_]\w*)
  | (?P<punct>::|->|\.\.\.|<=>|<<=|==|!=|<=|>=|&&|\|\||<<|\+\+|--|[-+*/%^&|~!=<>?:;,.(){}\[\]#])
  | (?P<space>\s+)
""", re.S | re.X)


class Token:
    __slots__ = ("kind", "text", "start", "end", "line")

    def __init__(self, kind, text, start, end, line):
        self.kind, self.text, self.start, self.end, self.line = kind, text, start, end, line

    def __repr__(self):
        return f"{self.text!r}@{self.line}"


class ParseError(Exception):
    pass


def lex(text):
    """The tokens of `text` but comments and preprocessor lines, and the
    comments: {line: text} of those alone on their line, {line: text} of
    those after code."""
    tokens, own, trailing = [], {}, {}
    line, position, line_has_code = 1, 0, False
    while position < len(text):
        match = TOKEN.match(text, position)
        if not match:
            raise ParseError(f"line {line}: cannot read {text[position:position + 20]!r}")
        kind, piece = match.lastgroup, match.group()
        if kind == "punct" and piece == "#" and not line_has_code:
            end = position
            while True:  # a preprocessor line, with its continuations
                end = text.find("\n", end)
                if end < 0:
                    end = len(text)
                    break
                if text[end - 1] != "\\":
                    break
                end += 1
            line += text.count("\n", position, end)
            position = end
            continue
        if kind == "comment":
            (trailing if line_has_code else own)[line] = piece[2:]
        elif kind != "space" and kind != "block":
            tokens.append(Token(kind, piece, match.start(), match.end(), line))
            line_has_code = True
        newlines = piece.count("\n")
        if newlines:
            line += newlines
            line_has_code = False
        position = match.end()
    return tokens, own, trailing


def spelled(text, tokens):
    """The source of `tokens`, comments dropped, each gap one space."""
    out = []
    for i, token in enumerate(tokens):
        if i and token.start > tokens[i - 1].end:
            out.append(" ")
        out.append(token.text)
    return "".join(out)


# ---------------------------------------------------------------- parse

# Words a `(` may follow without naming a function: keywords, and the built-in
# types of a function type (`std::function<void(int)>`, `operator bool()`).
KEYWORDS_BEFORE_PARENS = {"requires", "decltype", "sizeof", "noexcept", "alignof", "alignas",
                          "static_assert", "explicit", "return", "if", "while", "for", "void",
                          "bool", "char", "int", "long", "short", "unsigned", "signed", "float",
                          "double", "auto", "const", "operator"}
SPECIFIERS = {"static", "inline", "constexpr", "consteval", "virtual", "friend", "explicit",
              "extern", "mutable"}


class Declaration:
    """One declaration of a scope: a function, a type, a data member, or an
    item that only ends a comment's reach (an access label, a skipped line)."""

    def __init__(self, kind, first, last, signature="", name="", public=True):
        self.kind = kind            # function, type, data, static, skip, label
        self.first, self.last = first, last
        self.signature, self.name = signature, name
        self.public = public
        self.members = []           # of a type: its items
        self.above = None           # the comment paragraph that covers it (own or inherited)
        self.own = False            # whether `above` is directly above it
        self.trailing = None
        self.namespace = ""
        self.is_class = False
        self.parameters = ""        # of a type: its template parameters, for the heading


class Parser:
    def __init__(self, text, path):
        self.text, self.path = text, path
        self.tokens, self.own, self.trailing = lex(text)
        self.i = 0

    def error(self, message):
        line = self.tokens[min(self.i, len(self.tokens) - 1)].line if self.tokens else 0
        raise ParseError(f"{self.path}:{line}: {message}")

    def peek(self, offset=0):
        j = self.i + offset
        return self.tokens[j] if j < len(self.tokens) else None

    def at(self, *texts, offset=0):
        token = self.peek(offset)
        return token is not None and token.text in texts

    def skip_balanced(self):
        """Skips from an opening bracket to just past its match."""
        pairs = {"(": ")", "[": "]", "{": "}"}
        stack = []
        while self.i < len(self.tokens):
            text = self.tokens[self.i].text
            if text in pairs:
                stack.append(pairs[text])
            elif text in pairs.values():
                if not stack or stack.pop() != text:
                    self.error(f"unbalanced {text!r}")
                if not stack:
                    self.i += 1
                    return
            self.i += 1
        self.error("unterminated bracket")

    def skip_statement(self):
        """Skips to just past the next `;` outside brackets."""
        while self.i < len(self.tokens):
            if self.at("(", "[", "{"):
                self.skip_balanced()
                continue
            if self.at(";"):
                self.i += 1
                return
            if self.at("}"):
                self.error("expected ';'")
            self.i += 1
        self.error("unterminated statement")

    def template_head(self):
        """Consumes `template <...>` (several of them) and returns its tokens."""
        start = self.i
        while self.at("template") and self.at("<", offset=1):
            self.i += 2
            depth = 1
            while depth:
                if self.i >= len(self.tokens):
                    self.error("unterminated template head")
                if self.at("(", "[", "{"):
                    self.skip_balanced()
                    continue
                if self.at("<"):
                    depth += 1
                elif self.at(">"):
                    depth -= 1
                self.i += 1
        return self.tokens[start:self.i]

    # A scope: the file, a namespace or a class body.
    def scope(self, namespace, klass=None, public=True):
        items = []
        while self.i < len(self.tokens):
            token = self.peek()
            text = token.text
            if text == "}":
                return items
            if text == ";":
                self.i += 1
                continue
            if text == "namespace":
                items.extend(self.namespace(namespace))
                continue
            if text in ("public", "private", "protected") and self.at(":", offset=1):
                public = text == "public"
                items.append(Declaration("label", token.line, token.line))
                self.i += 2
                continue
            if text in ("extern", "static_assert", "using", "typedef") or (
                    text == "template" and not self.at("<", offset=1)):
                first = token.line
                self.skip_statement()
                items.append(Declaration("skip", first, self.tokens[self.i - 1].line))
                continue
            items.append(self.declaration(namespace, klass, public))
        if klass is not None:
            self.error(f"class {klass} is not closed")
        return items

    def namespace(self, outer):
        self.i += 1
        name = []
        while not self.at("{"):
            if self.at("=", ";"):  # a namespace alias
                self.skip_statement()
                return []
            name.append(self.peek().text)
            self.i += 1
        name = "".join(name)
        if not name or "detail" in name.split("::"):
            self.skip_balanced()
            return []
        self.i += 1
        full = name if name.startswith("topos") or not outer else outer + "::" + name
        items = self.scope(full)
        if not self.at("}"):
            self.error("namespace is not closed")
        self.i += 1
        return items

    def declaration(self, namespace, klass, public):
        start = self.i
        first_line = self.peek().line
        head = self.template_head()
        # Past specifiers and attributes, to what the declaration is.
        after_head = self.i
        while self.at(*SPECIFIERS) or (self.at("[") and self.at("[", offset=1)):
            if self.at("["):
                self.skip_balanced()
            else:
                self.i += 1
        lead = self.i
        self.i = after_head
        word = self.tokens[lead].text if lead < len(self.tokens) else ""
        if word == "concept":
            self.skip_statement()
            return Declaration("skip", first_line, self.tokens[self.i - 1].line)
        if word in ("class", "struct", "union", "enum"):
            return self.type_declaration(start, head, lead, namespace, klass, public, first_line)
        return self.member(start, head, namespace, klass, public, first_line)

    def type_declaration(self, start, head, j, namespace, klass, public, first_line):
        keyword = self.tokens[j].text
        self.i = j + 1
        if keyword == "enum" and self.at("class", "struct"):
            self.i += 1
        name_token = self.peek()
        # Up to the body or the `;` of a forward declaration.
        while not self.at("{", ";"):
            if self.i >= len(self.tokens):
                self.error("unterminated type declaration")
            self.i += 1
        if self.at(";") or self.tokens[j - 1].text == "friend":
            self.skip_statement()
            return Declaration("skip", first_line, self.tokens[self.i - 1].line)
        item = Declaration("type", first_line, 0, name=name_token.text, public=public)
        item.signature = signature_of(self.text, head, self.tokens[start + len(head):self.i])
        item.is_class = keyword != "enum"
        item.namespace = namespace
        item.parameters = template_parameters(head)
        if keyword == "enum":
            open_at = self.i
            self.skip_balanced()
            body = self.tokens[open_at + 1:self.i - 1]
            enumerators = split_top(body, ",")
            item.signature += " { " + (", ".join(
                spelled(self.text, e) for e in enumerators if e) or "...") + " }"
        else:
            self.i += 1
            item.members = self.scope(namespace, klass=item.name, public=keyword != "class")
            self.i += 1  # the closing brace
        item.last = self.tokens[self.i - 1].line
        if self.at(";"):
            self.i += 1
        return item

    def member(self, start, head, namespace, klass, public, first_line):
        """A function or a data member, up to its `;` or the end of its body."""
        openers = []          # the token before each open bracket
        requires_closed = False
        end = None            # index just past the signature
        kind = "data"
        after_head = self.i
        while True:
            token = self.peek()
            if token is None:
                self.error("unterminated declaration")
            text = token.text
            if not openers:
                if text == ";":
                    end = self.i
                    self.i += 1
                    break
                if text == "{":
                    if requires_closed:  # a requires-expression's body
                        requires_closed = False
                        self.skip_balanced()
                        continue
                    if kind == "function":  # the function's body
                        end = self.i
                        self.skip_balanced()
                        break
                    self.skip_balanced()  # a brace initialiser
                    continue
                if text == ":" and kind == "function":
                    end = self.i
                    self.constructor_initialisers()
                    break
                if text == "(" and kind == "data" and self.declarator(after_head):
                    kind = "function"
                if text == "=" and kind == "data" and self.tokens[self.i - 1].text != "operator":
                    kind = "initialised"
            requires_closed = False
            if text in ("(", "[", "{"):
                openers.append(self.tokens[self.i - 1].text if self.i > after_head else "")
            elif text in (")", "]", "}"):
                if not openers:
                    self.error(f"unbalanced {text!r}")
                before = openers.pop()
                requires_closed = text == ")" and before == "requires" and not openers
            self.i += 1
        tokens = self.tokens[start + len(head):end]
        item = Declaration("function" if kind == "function" else "data", first_line,
                           self.tokens[self.i - 1].line, public=public)
        item.namespace = namespace
        item.signature = signature_of(self.text, head, tokens)
        words = [t.text for t in tokens]
        if item.kind == "function":
            item.name = function_name(tokens)
            deleted = words[-2:] == ["=", "delete"]
            base = klass.split("<")[0] if klass else None
            if deleted or item.name.startswith("~") or item.name.endswith("_") or (
                    base and is_copy_or_move(item.name, tokens, base)):
                item.kind = "skip"
        else:
            before_equals = words[:words.index("=")] if "=" in words else words
            names = [t.text for t in tokens[:len(before_equals)] if t.kind == "word"]
            item.name = names[-1] if names else ""
            if "static" in words or klass is None:
                item.kind = "static"
            if item.name.endswith("_"):
                item.kind = "skip"
        return item

    def declarator(self, after_head):
        """Whether the `(` at self.i opens a function's parameters (or the `()`
        of `operator()`): it follows a name that is not a keyword, or the
        symbols of an operator's name."""
        if self.i <= after_head:
            return False
        before = self.tokens[self.i - 1]
        if before.kind == "word" and before.text not in KEYWORDS_BEFORE_PARENS:
            return True
        for j in range(self.i - 1, max(after_head, self.i - 8) - 1, -1):
            text = self.tokens[j].text
            if text == "operator":
                return True
            if text in ("(", ")", ";", "{", "}", ","):
                return False
        return False

    def constructor_initialisers(self):
        """From a constructor's `:` to just past its body."""
        self.i += 1
        while self.i < len(self.tokens):
            if self.at("(", "["):
                self.skip_balanced()
                continue
            if self.at("{"):
                before = self.tokens[self.i - 1]
                if before.kind == "word" or before.text == ">":
                    self.skip_balanced()  # a brace initialiser of a member
                    continue
                self.skip_balanced()
                return
            self.i += 1
        self.error("unterminated constructor")


def split_top(tokens, separator):
    parts, current, depth = [], [], 0
    for token in tokens:
        if token.text in ("(", "[", "{", "<"):
            depth += 1
        elif token.text in (")", "]", "}", ">"):
            depth -= 1
        if token.text == separator and depth == 0:
            parts.append(current)
            current = []
        else:
            current.append(token)
    parts.append(current)
    return parts


def template_parameters(head):
    """`T`, `T, State`, `Initialiser` of a template head, for a heading."""
    if not head:
        return ""
    names = []
    for part in split_top(head[2:-1], ","):
        words = [t.text for t in part if t.kind == "word"]
        if "=" in [t.text for t in part]:
            words = [t.text for t in part[:[t.text for t in part].index("=")] if t.kind == "word"]
        if words:
            names.append(words[-1])
    return ", ".join(names)


def signature_of(text, head, tokens):
    """The declaration as spelled, its `template <Element T>` head left out."""
    head_text = spelled(text, head)
    body = spelled(text, tokens)
    if head_text == "template <Element T>":
        return body
    return (head_text + " " + body).strip()


def function_name(tokens):
    words = [t.text for t in tokens]
    for k, word in enumerate(words):
        if word == "operator":
            if words[k + 1:k + 3] in (["(", ")"], ["[", "]"]):
                return "operator" + words[k + 1] + words[k + 2]
            rest = []
            for w in words[k + 1:]:
                if w == "(":
                    break
                rest.append(w)
            glue = "" if rest and not re.match(r"\w", rest[0]) else " "
            return "operator" + glue + "".join(rest)
    depth = 0
    for k, token in enumerate(tokens):
        if token.text == "(" and depth == 0 and k and tokens[k - 1].kind == "word" and \
                tokens[k - 1].text not in KEYWORDS_BEFORE_PARENS:
            name = tokens[k - 1].text
            return ("~" + name) if k >= 2 and tokens[k - 2].text == "~" else name
        if token.text in ("(", "[", "{"):
            depth += 1
        elif token.text in (")", "]", "}"):
            depth -= 1
    return ""


def is_copy_or_move(name, tokens, base):
    """A copy or move constructor or assignment of class `base`."""
    if name not in (base, "operator="):
        return False
    words = [t.text for t in tokens]
    try:
        open_at = words.index("(", words.index("operator") + 2 if name == "operator=" else 0)
    except ValueError:
        return False
    depth, close_at = 0, open_at
    for k in range(open_at, len(words)):
        depth += words[k] == "("
        depth -= words[k] == ")"
        if depth == 0:
            close_at = k
            break
    parameters = " ".join(words[open_at + 1:close_at])
    return parameters in (f"const {base} &", f"{base} &&", f"const {base} & other",
                          f"{base} && other") or re.fullmatch(
        rf"(const {base} &|{base} &&)( \w+)?", parameters) is not None


# ---------------------------------------------------------------- comments

def paragraphs(own, last_line):
    """The comment block ending on `last_line`, as paragraphs of lines."""
    lines = []
    line = last_line
    while line in own:
        lines.append(own[line])
        line -= 1
    lines.reverse()
    result, current = [], []
    for text in lines:
        if re.match(r"\s*NOLINT", text):
            continue
        if not text.strip():
            if current:
                result.append(current)
            current = []
        else:
            current.append(text[1:] if text.startswith(" ") else text)
    if current:
        result.append(current)
    return result


def clean_trailing(text):
    text = re.sub(r"NOLINT(NEXTLINE)?(\([^)]*\))?", "", text)
    text = re.sub(r"IWYU pragma:.*", "", text)
    return text.strip() or None


def prose(lines):
    """A comment paragraph as pieces: ("text", the prose lines joined) and
    ("code", a code span for each indented line)."""
    pieces = []
    for text in lines:
        text = re.sub(r"^-{3,}\s*|\s*-{3,}$", "", text)  # a section's ruler
        if text.startswith("  "):
            pieces.append(("code", "`" + " ".join(text.split()) + "`"))
        elif pieces and pieces[-1][0] == "text":
            pieces[-1] = ("text", pieces[-1][1] + " " + " ".join(text.split()))
        else:
            pieces.append(("text", " ".join(text.split())))
    return pieces


def first_sentence(pieces):
    """The first sentence of a paragraph: up to the first full stop outside
    brackets and code, or through the first run of code lines. A first
    sentence of one or two words (a heading: "Layout.") takes the next too."""
    sentence = one_sentence(pieces)
    if len(sentence.split()) < 3 and sentence.endswith("."):
        rest = " ".join(text for _, text in pieces)[len(sentence):].strip()
        if rest:
            return sentence + " " + one_sentence(prose([rest]))
    return sentence


def one_sentence(pieces):
    out = []
    for k, (kind, text) in enumerate(pieces):
        if kind == "code":
            out.append(text)
            if k + 1 == len(pieces) or pieces[k + 1][0] != "code":
                return " ".join(out)
            continue
        depth, tick = 0, False
        for position, char in enumerate(text):
            if char == "`":
                tick = not tick
            elif not tick and char in "([":
                depth += 1
            elif not tick and char in ")]":
                depth -= 1
            elif (char == "." and not tick and depth <= 0 and
                  re.match(r"\s+([A-Z`\"'(]|[a-z_]\w*(\(|::))", text[position + 1:])):
                out.append(text[:position + 1])
                return " ".join(out)
        out.append(text)
    return " ".join(out)


def meaning_of(lines):
    pieces = prose(lines)
    whole = " ".join(text for _, text in pieces)
    return whole if len(whole) <= SHORT else first_sentence(pieces)


def class_comment(opening, name):
    """The sentence of the header's opening comment that starts with `name`."""
    if not opening:
        return None
    pieces = prose(opening[0])
    for k, (kind, text) in enumerate(pieces):
        match = kind == "text" and re.search(
            rf"(?:^|(?<=\. ))(?:\w+::)*{re.escape(name)}(?:<[\w, ]*>)?: ", text)
        if match:
            return first_sentence([("text", text[match.start():])] + pieces[k + 1:])
    return None


def annotate(items, own, trailing):
    """Sets `above` and `trailing` of each item of a scope, in order."""
    previous = None
    for item in items:
        block = paragraphs(own, item.first - 1)
        if block:
            item.above, item.own = block[-1], True
        elif previous is not None and previous.kind not in ("label",) and \
                previous.last == item.first - 1 and previous.above:
            item.above = previous.above
        if item.last in trailing:
            item.trailing = clean_trailing(trailing[item.last])
        if item.members:
            annotate(item.members, own, trailing)
        previous = item


def meaning(item, opening):
    above = meaning_of(item.above) if item.above else None
    if item.own and above:
        return above.rstrip(".") + " — " + item.trailing if item.trailing else above
    if item.trailing:
        return item.trailing
    if above:
        return above
    if item.kind == "type":
        return class_comment(opening, item.name)
    return None


# ---------------------------------------------------------------- the page

def headers(root):
    """(section title, [header paths relative to include/topos/])."""
    base = root / "include/topos"
    listed = set()
    groups = []
    for title, names in GROUPS:
        paths = []
        for name in names:
            if name.endswith("/*"):
                found = sorted(p.relative_to(base).as_posix()
                               for p in (base / name[:-2]).glob("*.hpp"))
                paths.extend(p for p in found if p not in listed and p not in names)
            else:
                if not (base / name).exists():
                    raise SystemExit(f"tools/api-reference.py lists include/topos/{name}, "
                                     "which is missing")
                paths.append(name)
        listed.update(paths)
        groups.append((title, paths))
    missing = [p.relative_to(base).as_posix() for folder in COVERED
               for p in sorted((base / folder).glob("*.hpp"))
               if p.relative_to(base).as_posix() not in listed]
    return groups, missing


def parse_text(text, path):
    """The items of a header's text, annotated, and its opening comment."""
    parser = Parser(text, path)
    items = parser.scope("topos")
    if parser.i != len(parser.tokens):
        parser.error("unexpected '}'")
    annotate(items, parser.own, parser.trailing)
    line = 1
    while line in parser.own:
        line += 1
    return items, paragraphs(parser.own, line - 1)


def parse_header(root, name):
    return parse_text((root / "include/topos" / name).read_text(), f"include/topos/{name}")


def cell(text):
    """A table cell: pipes escaped; outside code spans, what markdown would
    read as markup too."""
    out = []
    for k, part in enumerate(re.split(r"(`[^`]*`)", text)):
        if k % 2:
            out.append(part.replace("|", "\\|"))
        else:
            part = part.replace("\\", "\\\\").replace("|", "\\|")
            part = re.sub(r"<(?=[A-Za-z/!?])", r"\\<", part)  # what would read as a tag
            part = re.sub(r"(?<=\S)\*|\*(?=\S)", r"\\*", part)  # what would read as emphasis
            out.append(part)
    return "".join(out)


def code(signature):
    return "`" + signature.replace("|", "\\|") + "`"


def type_signature(item):
    fields = [m.signature for m in item.members if m.kind == "data" and m.public]
    if item.is_class and fields:
        return item.signature + " { " + "; ".join(fields) + "; }"
    return item.signature


def listed(items):
    """The public items of a scope that get a row."""
    return [item for item in items
            if item.public and item.kind not in ("skip", "label", "data")]


def row(item, opening, header, undocumented, klass=None):
    """[signature, meaning] of one item, noting it when it has no comment."""
    text = meaning(item, opening)
    if text is None:
        name = (klass + "::" if klass else "") + item.name
        undocumented.append((item.first, f"include/topos/{header}:{item.first} {name}"))
        text = ""
    return type_signature(item) if item.kind == "type" else item.signature, text


def blocks_of(items, opening, header, undocumented):
    """The header's rows in declaration order: a class with members is a
    block of its own (its row, then its members'), and the items between
    classes are runs."""
    blocks, run = [], []
    for item in listed(items):
        if item.kind == "type" and item.is_class and listed(item.members):
            if run:
                blocks.append((None, run))
                run = []
            rows = [row(item, opening, header, undocumented) + (True,)]
            rows += [row(member, opening, header, undocumented, klass=item.name) + (False,)
                     for member in listed(item.members)]
            blocks.append((item, rows))
        else:
            run.append(row(item, opening, header, undocumented) + (item.kind == "type",))
    if run:
        blocks.append((None, run))
    return blocks


def namespace_of(items):
    for item in items:
        if item.kind not in ("label", "skip"):
            return item.namespace
    return "topos"


def header_section(root, name, undocumented):
    """The lines of one header's section, and its number of rows."""
    items, opening = parse_header(root, name)
    blocks = blocks_of(items, opening, name, undocumented)
    lines = [f"### `<topos/{name}>`", ""]
    summary = meaning_of(opening[0]) if opening else ""
    if any(row[1] == summary for _, rows in blocks for row in rows):
        summary = ""  # the header's comment is its class's, shown in its row
    namespace = namespace_of(items)
    if namespace != "topos":
        summary = (summary + " " if summary else "") + f"In namespace `{namespace}`."
    if summary:
        lines += [cell(summary), ""]
    classes = any(kind is not None for kind, _ in blocks)
    count = 0
    for kind, rows in blocks:
        if kind is not None:
            parameters = f"<{kind.parameters}>" if kind.parameters else ""
            lines += [f"#### `{kind.name}{parameters}`", ""]
        elif classes:
            types = {is_type for _, _, is_type in rows}
            title = {(True,): "Types", (False,): "Functions"}.get(tuple(types), "Types and functions")
            lines += [f"#### {title}", ""]
        lines += ["| declaration | meaning |", "| --- | --- |"]
        for signature, text, _ in rows:
            lines.append(f"| {code(signature)} | {cell(text)} |")
        lines.append("")
        count += len(rows)
    return lines, count


def render(root):
    """The page, its number of rows, and what has no comment."""
    groups, missing = headers(root)
    undocumented = [f"include/topos/{name}: a header in no group of tools/api-reference.py"
                    for name in missing]
    out = ["# API reference", "",
           "Every public call a user types, header by header: its signature as declared and",
           "one line of meaning, taken from the header's own comment above it. The page is",
           "generated from the headers' comments by `tools/api-reference.py`, and CTest",
           "(`docs.api_reference`) fails when the page and the headers disagree or when a",
           "public call has no comment; regenerate it with",
           "`tools/api-reference.py . > docs/reference/api.md`. `T` is `float` or `double`",
           "throughout: the `template <Element T>` before a declaration is left out. The",
           "opcodes a tape records are in the [operation reference](operations.md).", ""]
    count = 0
    contents, body = [], []
    for title, names in groups:
        anchor = re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")
        contents.append(f"- [{title}](#{anchor}): " +
                        ", ".join(f"`{name}`" for name in names))
        body += [f"## {title}", ""]
        for name in names:
            noted = []
            lines, rows = header_section(root, name, noted)
            undocumented += [text for _, text in sorted(noted)]
            body += lines
            count += rows
    out += contents + [""] + body
    return "\n".join(out).rstrip("\n") + "\n", count, undocumented


def main(arguments):
    if not arguments or arguments[1:2] not in ([], ["--check"]) or (
            arguments[1:2] == ["--check"] and len(arguments) != 3):
        sys.stderr.write(__doc__)
        return 2
    root = pathlib.Path(arguments[0])
    try:
        text, count, undocumented = render(root)
    except ParseError as error:
        print(f"api-reference: cannot parse {error}")
        return 1
    if arguments[1:2] == ["--check"]:
        status = 0
        if undocumented:
            print(f"{len(undocumented)} public calls have no comment directly above them "
                  "(write one, a line that says what the call does):")
            for line in undocumented:
                print(f"  {line}")
            status = 1
        target = pathlib.Path(arguments[2])
        written = target.read_text() if target.exists() else ""
        if written != text:
            old, new = written.splitlines(), text.splitlines()
            differing = next((k for k in range(max(len(old), len(new)))
                              if k >= len(old) or k >= len(new) or old[k] != new[k]), 0)
            print(f"{arguments[2]} is out of date (first difference at line {differing + 1}: "
                  f"the headers give {new[differing] if differing < len(new) else '(nothing)'!r}"
                  f"): regenerate it with tools/api-reference.py . > {arguments[2]}")
            status = 1
        if status == 0:
            print(f"{arguments[2]} matches the headers: {count} entries, each with a comment")
        return status
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
