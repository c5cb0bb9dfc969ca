#!/usr/bin/env python3
"""Checks that the folders of each module depend on one another in one direction only.

Each module's folders are listed below in the order data moves through them (the README's
architecture section): a file may use what the files of its own folder and of the folders before
it declare, never what a folder after it declares. A sub-folder is a folder of its own with a
place of its own in the list (`Positioning/Solvers/Fingerprint`); "." is the module's top-level
files. Every module with sub-folders must have an order, and every folder a place in it.

A file uses what another folder declares when its code (comments and string literals left out,
a string's interpolations kept):
- names a type that the folder declares at the top level. A name does not count where the file
  declares it itself (a nested type, a typealias, an associated type), where it is a generic
  parameter of a declaration around it (`func f<Element>`, `struct S<Element>`, `init<Element>`,
  `subscript<Element>`, `typealias T<Element>`, within that declaration only: `Array<Scan>` is a
  use of `Scan`), or after a dot (`RadioModel.Calibration`);
- or calls a member that the folder adds in an extension (`extension UInt8 { var hexDigitValue }`,
  called as `.hexDigitValue` or `hexDigitValue(`; an initialiser `init(hexDigit:)` called as
  `UInt8(hexDigit:` or `.init(hexDigit:`), when the member's name tells it apart: nothing else
  in Sources/ declares a member so named (an initialiser: with that first label), it is not
  private, and (but for an initialiser, which goes by its type's name too) it is not one of the
  names in STANDARD, which the standard library and the dependencies give members of their own.

Prints every backward reference, FOLDER -> LATER FOLDER: FILE names TYPE (or Type.member for a
member), and exits with 1 when there is any.

    Scripts/folder-edges.py            # every module below
    Scripts/folder-edges.py --edges    # also prints the edges between folders, with their counts

Its own tests: python3 -m unittest discover -s Scripts -p folder_edges_test.py
"""
import bisect
import collections
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources"))

# Per module, its folders in order; "." is the module's own top-level files and a sub-folder is
# written as its path. A folder missing from its module's list is an error, and so is a module
# with sub-folders missing from ORDER, so that a new folder gets its place. WhereaboutsBluetooth,
# WhereaboutsFacades and WhereaboutsServerTesting have top-level files only: nothing to check.
ORDER = {
    "Whereabouts": [
        "Support", "JSON", "Geometry", "Core", "Venue", "Beacons/Frames", "Beacons/Signal", "Recording",
        "Receivers", "Simulation", "Positioning/Calibration", "Positioning/Motion", "Positioning",
        "Positioning/Solvers", "Positioning/Solvers/Fingerprint", "Positioning/Solvers/Default", "Positioning/Solvers/Posterior",
        "Positioning/Setup", "Places", "Rooms", "Monitoring", "Pipeline", "Evaluation", ".",
    ],
    "WhereaboutsServer": [
        "Support", "Configuration", "Model", "Storage", "Access", "Export", "API", "Import", "Receivers", "HTTP", "Live", "Map", ".",
    ],
    "WhereaboutsTracking": [
        "Events", "Policy", "Outbox", "Client", "Delivery", ".", "Run",
    ],
    "WhereaboutsMQTT": [
        "Client", "ESPresense", "HomeAssistant", "Bridge",
    ],
    "whereabouts": [
        "Support", "Commands", ".",
    ],
}

# Member names that the standard library, Foundation, SwiftNIO or ArgumentParser give members of
# their own (most are protocols' requirements): an extension that adds one cannot be told from
# theirs by the name alone.
STANDARD = {
    "init", "description", "debugDescription", "hash", "hashValue", "encode", "rawValue", "id",
    "count", "isEmpty", "first", "last", "min", "max", "map", "compactMap", "flatMap", "filter",
    "reduce", "contains", "sorted", "reversed", "next", "makeIterator", "makeAsyncIterator",
    "callAsFunction", "value", "values", "keys", "index", "startIndex", "endIndex", "append",
    "insert", "remove", "removeAll", "write", "read", "run", "start", "stop", "cancel", "close",
    "error", "errorDescription", "localizedDescription", "distance", "advanced", "allCases", "zero",
    "now", "duration", "seconds", "milliseconds", "data", "string", "url", "path", "name", "formatted",
    "rounded", "shutdown", "argument", "allValueStrings", "allValueDescriptions", "defaultValueDescription",
    "validate", "help", "configuration",
}

DECLARED_HERE = re.compile(
    r"^[ \t]*(?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|package|internal|private|fileprivate|open|final|indirect|nonisolated|static)\s+)*"
    r"(?:struct|enum|class|actor|protocol|typealias|associatedtype)\s+([A-Z]\w*)",
    re.M,
)
TOP_LEVEL = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|package|internal|private|fileprivate|open|final|indirect|nonisolated)\s+)*"
    r"(?:struct|enum|class|actor|protocol|typealias)\s+([A-Z]\w*)",
    re.M,
)
# A declaration with a generic clause; the match ends at the clause's `<`.
GENERIC_DECLARATION = re.compile(
    r"(?<![\w.])(?:func\s+\w+|(?:struct|enum|class|actor|typealias)\s+[A-Z]\w*|init[?!]?|subscript)\s*<"
)
NAME = re.compile(r"(?<![.\w])([A-Z]\w*)\b")
# What opens a type's or an extension's body: the last such words before its `{`, with no member
# declaration after them.
TYPE_OPENING = re.compile(r"\b(struct|enum|class|actor|protocol|extension)\s+([A-Z][\w.]*)")
MEMBER_AFTER = re.compile(r"\b(?:func|init|var|let|subscript|case)\b")
MEMBER = re.compile(
    r"(?:^|(?<=[{;]))[ \t]*((?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|open|final|"
    r"nonisolated|static|class|mutating|nonmutating|override|convenience|required|lazy|weak|unowned|"
    r"dynamic|indirect|optional)(?:\([^)]*\))?\s+)*)"
    r"(func|var|let|case|init[?!]?)(?!\w)\s*",
    re.M,
)
MEMBER_NAME = re.compile(r"`?([A-Za-z_]\w*)`?")


# --- Reading Swift --------------------------------------------------------------------------


def code_of(path):
    """The code of the file at `path`, without comments and string literals."""
    with open(path, encoding="utf-8") as file:
        return strip(file.read())


def strip(text):
    """`text` without comments and string literals; a string's interpolations stay, as code."""
    out = []
    scan(text, 0, out, in_interpolation=False)
    return "".join(out)


def scan(text, index, out, in_interpolation):
    """Copies the code from `index` to `out`, up to the `)` that closes the interpolation when
    `in_interpolation`; returns where it stopped."""
    depth = 0
    while index < len(text):
        character = text[index]
        if text.startswith("//", index):
            end = text.find("\n", index)
            index = len(text) if end < 0 else end
        elif text.startswith("/*", index):
            nesting, index = 1, index + 2
            while index < len(text) and nesting:
                if text.startswith("/*", index):
                    nesting, index = nesting + 1, index + 2
                elif text.startswith("*/", index):
                    nesting, index = nesting - 1, index + 2
                else:
                    index += 1
            out.append(" ")
        elif character == '"' or (character == "#" and re.match(r'#+"', text[index:index + 8])):
            index = string(text, index, out)
        else:
            if character == "(":
                depth += 1
            elif character == ")":
                if in_interpolation and depth == 0:
                    return index
                depth -= 1
            out.append(character)
            index += 1
    return index


def string(text, index, out):
    """Skips the string literal at `index` (raw or not, multi-line or not), writing `""` and the
    code of its interpolations to `out`; returns the index after it."""
    hashes = len(re.match(r"#*", text[index:index + 8]).group(0))
    index += hashes
    multiline = text.startswith('"""', index)
    index += 3 if multiline else 1
    close = ('"""' if multiline else '"') + "#" * hashes
    escape = "\\" + "#" * hashes
    out.append('""')
    while index < len(text):
        if text.startswith(close, index):
            return index + len(close)
        if text.startswith(escape, index):
            index += len(escape)
            if text.startswith("(", index):
                out.append(" ")
                index = scan(text, index + 1, out, in_interpolation=True) + 1
                out.append(" ")
            else:
                index += 1
        elif text[index] == "\n" and not multiline:
            return index
        else:
            index += 1
    return index


def braces(code):
    """Each `{`'s index mapped to its `}`'s (the end of the code when it has none)."""
    pairs, stack = {}, []
    for index, character in enumerate(code):
        if character == "{":
            stack.append(index)
        elif character == "}" and stack:
            pairs[stack.pop()] = index
    for index in stack:
        pairs[index] = len(code)
    return pairs


def generic_scopes(code, pairs):
    """Per generic parameter's name, the stretches of `code` (start, end) where it is one: from
    its declaration to the end of the declaration's body (of its line, for a typealias)."""
    scopes = collections.defaultdict(list)
    for match in GENERIC_DECLARATION.finditer(code):
        depth, index, items, item = 0, match.end() - 1, [], ""
        while index < len(code):
            character = code[index]
            if character == "<":
                depth += 1
            elif character == ">" and code[index - 1] != "-":
                depth -= 1
                if depth == 0:
                    break
            if character == "," and depth == 1:
                items.append(item)
                item = ""
            elif depth > 1 or character != "<":
                item += character
            index += 1
        items.append(item)
        names = [found.group(1) for found in (re.match(r"\s*(?:each\s+)?([A-Z]\w*)", item) for item in items) if found]
        if match.group(0).startswith("typealias"):
            end = code.find("\n", index)
            end = len(code) if end < 0 else end
        else:
            end = body_end(code, index, pairs)
        for name in names:
            scopes[name].append((match.start(), end))
    return scopes


def body_end(code, index, pairs):
    """Where the declaration whose signature goes on at `index` ends: at its body's `}`, or at
    the enclosing scope's `}` when it has no body (a protocol's requirement)."""
    depth = 0
    while index < len(code):
        character = code[index]
        if character in "([":
            depth += 1
        elif character in ")]":
            depth -= 1
        elif character == "{" and depth <= 0:
            return pairs[index]
        elif character == "}" and depth <= 0:
            return index
        index += 1
    return len(code)


def members(code, pairs):
    """The members that `code` declares right in a type's or an extension's body, each as
    (name, is an initialiser, the extended type or None in a type's own body, is private); an
    initialiser goes by its first argument label."""
    bodies = {}  # a body's `{` → the type it extends, or None for a type's own body
    for start in pairs:
        head = code[max(code.rfind("}", 0, start), code.rfind("{", 0, start), code.rfind(";", 0, start), 0):start]
        opening = None
        for opening in TYPE_OPENING.finditer(head):
            pass
        if opening and not MEMBER_AFTER.search(head, opening.end()):
            bodies[start] = opening.group(2).split(".")[-1] if opening.group(1) == "extension" else None
    openings = sorted(pairs)
    found = []
    for match in MEMBER.finditer(code):
        position = match.start(2)
        # The innermost `{` around the declaration: the last one before it that is still open.
        inner = None
        for start in reversed(openings[:bisect.bisect_left(openings, position)]):
            if pairs[start] > position:
                inner = start
                break
        if inner not in bodies:
            continue
        extended = bodies[inner]
        kind = match.group(2).rstrip("?!")
        private = re.search(r"\b(?:private|fileprivate)\b", match.group(1)) is not None
        line_end = code.find("\n", match.end())
        rest = code[match.end():len(code) if line_end < 0 else line_end]
        if kind == "init":
            label = re.match(r"(?:<[^>]*>)?\s*\(\s*([A-Za-z]\w*)\s*(?:\w+\s*)?:", rest)
            if label and label.group(1) != "_":
                found.append((label.group(1), True, extended, private))
            continue
        if kind == "case":
            # `case a, b(Int)`: each name of the list.
            parts = re.sub(r"\([^)]*\)", "", rest).split(",")
            names = [name.group(1) for name in (MEMBER_NAME.match(part.strip()) for part in parts)
                     if name and name.group(1) not in {"let", "var", "is"}]
        else:
            name = MEMBER_NAME.match(rest)
            names = [name.group(1)] if name else []
        found.extend((name, False, extended, private) for name in names)
    return found


def uses_member(code, name, extended, initialiser):
    """Whether `code` calls the member `name`: `.name`, or `name(` where the code declares nothing
    so named itself; an initialiser `Extended(name:` or `.init(name:`."""
    if initialiser:
        return re.search(rf"(?:\b{extended}|\.init)\s*\(\s*{name}\s*:", code) is not None
    if re.search(rf"\.`?{name}`?\b", code):
        return True
    if re.search(rf"\b(?:func|var|let|case)\s+`?{name}\b", code):
        return False
    return re.search(rf"(?<![\w.]){name}\s*\(", code) is not None


# --- The check ------------------------------------------------------------------------------


class SourceFile:
    def __init__(self, root, module, path):
        self.path = path
        self.shown = os.path.relpath(path, root)
        self.folder = os.path.relpath(os.path.dirname(path), os.path.join(root, module)).replace(os.sep, "/")
        self.code = code_of(path)
        self.pairs = braces(self.code)
        self.members = members(self.code, self.pairs)


def modules_in(root):
    """Per module folder of `root`, its Swift files."""
    modules = {}
    for module in sorted(os.listdir(root)):
        base = os.path.join(root, module)
        if not os.path.isdir(base):
            continue
        modules[module] = [
            SourceFile(root, module, os.path.join(directory, name))
            for directory, _, names in sorted(os.walk(base)) for name in sorted(names) if name.endswith(".swift")
        ]
    return modules


def check(module, order, files, member_places, show_edges, say):
    """Prints the backward references of `module` (and its edges when `show_edges`); returns how
    many there are, or 1 when a folder has no place in `order`."""
    unknown = sorted({file.folder for file in files} - set(order))
    if unknown:
        say(f"{module}: folders without a place in Scripts/folder-edges.py's order: {', '.join(unknown)}")
        return 1
    rank = {name: index for index, name in enumerate(order)}
    declared = collections.defaultdict(set)
    for file in files:
        for match in TOP_LEVEL.finditer(file.code):
            declared[match.group(1)].add(file.folder)
    added = {}  # (name, is an initialiser) → (folder, extended type), for the members that tell apart
    for file in files:
        for name, initialiser, extended, private in file.members:
            standard = name in STANDARD and not initialiser
            if extended and not private and not standard and len(member_places[(name, initialiser)]) == 1:
                added[(name, initialiser)] = (file.folder, extended)
    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    for file in files:
        own = set(DECLARED_HERE.findall(file.code))
        scopes = generic_scopes(file.code, file.pairs)
        for match in NAME.finditer(file.code):
            name = match.group(1)
            if name in own or any(start <= match.start() < end for start, end in scopes.get(name, ())):
                continue
            for target in declared.get(name, ()):
                if target != file.folder:
                    edges[file.folder][target].add((file.shown, name))
        for (name, initialiser), (target, extended) in added.items():
            if target != file.folder and uses_member(file.code, name, extended, initialiser):
                member = f"{extended}.init({name}:)" if initialiser else f"{extended}.{name}"
                edges[file.folder][target].add((file.shown, member))
    backward = 0
    for source in sorted(edges, key=rank.get):
        for target in sorted(edges[source], key=rank.get):
            if show_edges:
                say(f"{module}: {source} -> {target} ({len(edges[source][target])})")
            if rank[target] > rank[source]:
                for path, name in sorted(edges[source][target]):
                    say(f"backward: {module}: {source} -> {target}: {path} names {name}")
                    backward += 1
    return backward


def run(root=ROOT, order=None, show_edges=False, say=print):
    """Checks every module of `root` that has folders against `order` (ORDER by default); returns
    the exit status."""
    order = ORDER if order is None else order
    modules = modules_in(root)
    member_places = collections.defaultdict(set)  # (name, is an initialiser) → module/folder
    for module, files in modules.items():
        for file in files:
            for name, initialiser, _, _ in file.members:
                member_places[(name, initialiser)].add(f"{module}/{file.folder}")
    failures = 0
    for module, files in modules.items():
        if module not in order and any(file.folder != "." for file in files):
            say(f"{module}: a module with folders and no order in Scripts/folder-edges.py")
            failures += 1
    backward = sum(check(module, folders, modules.get(module, []), member_places, show_edges, say)
                   for module, folders in order.items())
    if backward or failures:
        say(f"{backward} backward references between folders (the order is in Scripts/folder-edges.py)")
        return 1
    say("Folder edges: every reference runs forward (" + "; ".join(
        f"{module}: {' → '.join(folders)}" for module, folders in order.items()) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(run(show_edges="--edges" in sys.argv[1:]))
