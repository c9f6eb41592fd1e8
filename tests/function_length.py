#!/usr/bin/env python3
"""Functions of a readable length: no function in include/ or examples/ longer than LIMIT lines.

A function is a brace-enclosed body whose enclosing scope is a namespace, a class or the file
and whose head (the text since the previous ';', '{' or '}') has a parameter list: free
functions, member functions, constructors and lambdas defined at namespace scope. Lambdas and
local classes inside a function count towards that function. Its length runs from the first
line of its head to its closing brace. Comments, string and character literals (raw strings
included) are skipped when matching braces.

Prints each function over the limit (file:line: name, lines) and exits 1 if there is one.

usage: function_length.py SOURCE_ROOT [LIMIT]
"""
import os
import re
import sys

HEAD_KEYWORDS = re.compile(r"^\s*(if|for|while|switch|catch|do|else|return)\b")
SCOPE_HEAD = re.compile(r"\b(namespace|class|struct|union|enum)\b[^()]*$")


def strip_code(text):
    """The text with comments and literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#" and text[text.rfind("\n", 0, i) + 1:i].strip() == "":
            # A preprocessor line, with its continuations.
            j = i
            while True:
                j = text.find("\n", j)
                if j < 0 or text[j - 1] != "\\":
                    break
                j += 1
            j = n if j < 0 else j
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i + 2)
            delim = text[i + 2:k]
            j = text.find(")" + delim + '"', k)
            j = n if j < 0 else j + len(delim) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            # A digit separator (1'000) is not a character literal: it follows a digit.
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(first line, last line, name) of each function body (see the module comment)."""
    code = strip_code(text)
    stack = []  # kind of each open brace: 'scope', 'function', 'other'
    head_start = 0
    found = []
    line_of = lambda pos: code.count("\n", 0, pos) + 1
    for pos, c in enumerate(code):
        if c in ";":
            head_start = pos + 1
        elif c == "{":
            head = code[head_start:pos]
            parent_is_scope = all(k == "scope" for k in stack)
            if parent_is_scope and SCOPE_HEAD.search(head.strip().split("\n")[-1] if head.strip() else "") and "(" not in head:
                kind = "scope"
            elif parent_is_scope and re.search(r"\b(namespace|class|struct|union|enum)\b", head) and "(" not in head:
                kind = "scope"
            elif parent_is_scope and "(" in head and not HEAD_KEYWORDS.search(head) and not re.search(r"=\s*$", head):
                kind = "function"
                first = head_start + len(head) - len(head.lstrip())
                name = re.findall(r"([~\w:]+|operator\S+)\s*\(", re.sub(r"\[\[.*?\]\]", "", head, flags=re.S))
                stack.append(kind)
                found.append([line_of(first), None, name[0] if name else "?", len(stack)])
                head_start = pos + 1
                continue
            else:
                kind = "other"
            stack.append(kind)
            head_start = pos + 1
        elif c == "}":
            if stack:
                depth = len(stack)
                kind = stack.pop()
                if kind == "function":
                    for f in reversed(found):
                        if f[1] is None and f[3] == depth:
                            f[1] = line_of(pos)
                            break
            head_start = pos + 1
    return [(a, b, name) for a, b, name, _ in found if b is not None]


def main():
    root = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 120
    over = []
    count = 0
    for top in ("include", "examples"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".hpp", ".cpp", ".h", ".c")):
                    continue
                path = os.path.join(d, f)
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
                for first, last, name in functions(text):
                    count += 1
                    if last - first + 1 > limit:
                        over.append(f"{os.path.relpath(path, root)}:{first}: {name}, {last - first + 1} lines")
    if count == 0:
        print("no function found: the scan is broken")
        return 1
    for o in over:
        print(o)
    if over:
        print(f"{len(over)} of {count} functions longer than {limit} lines")
        return 1
    print(f"{count} functions, none longer than {limit} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
