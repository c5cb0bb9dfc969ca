#!/usr/bin/env python3
"""Checks that the folders of each module depend on one another in one direction only.

Each module's folders are listed below in the order data moves through them (the README's
architecture section): a file may name the types of its own folder and of the folders before
it, never of a folder after it. A type is "named" when its name appears in the code (comments
and string literals left out); a name declared inside the file itself (a nested type, a generic
parameter) or written after a dot (`RadioModel.Calibration`) does not count. Prints every
backward reference, FOLDER -> LATER FOLDER: FILE names TYPE, and exits with 1 when there is any.

    Scripts/folder-edges.py            # every module below
    Scripts/folder-edges.py --edges    # also prints the edges between folders, with their counts
"""
import collections
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources")

# Per module, its folders in order; "." is the module's own top-level files. A folder missing from
# its list is an error, so that a new folder gets its place.
ORDER = {
    "Whereabouts": [
        ".", "Support", "JSON", "Geometry", "Core", "Venue", "Beacons", "Recording", "Receivers", "Simulation",
        "Positioning", "Places", "Rooms", "Monitoring", "Pipeline", "Evaluation",
    ],
    "WhereaboutsServer": [
        "Support", "Configuration", "Model", "Storage", "Access", "Export", "API", "Receivers", "HTTP", "Live", "Map", ".",
    ],
    "WhereaboutsTracking": [
        "Events", "Policy", "Outbox", "Client", "Delivery", ".", "Run",
    ],
}

DECLARATION = re.compile(
    r"^[ \t]*(?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|package|internal|private|fileprivate|open|final|indirect|nonisolated|static)\s+)*"
    r"(?:struct|enum|class|actor|protocol|typealias)\s+([A-Z]\w*)",
    re.M,
)
TOP_LEVEL = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|package|internal|private|fileprivate|open|final|indirect|nonisolated)\s+)*"
    r"(?:struct|enum|class|actor|protocol|typealias)\s+([A-Z]\w*)",
    re.M,
)
GENERIC_PARAMETER = re.compile(r"<\s*([A-Z]\w*)\s*[:,>]")
NAME = re.compile(r"(?<![.\w])([A-Z]\w*)\b")


def code_of(path):
    """The file's code without comments and string literals."""
    with open(path, encoding="utf-8") as file:
        text = file.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r'"""(.*?)"""', '""', text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', text)


def check(module, order, show_edges):
    base = os.path.join(ROOT, module)
    files = {}
    for directory, _, names in os.walk(base):
        for name in names:
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                files[path] = code_of(path)

    def folder(path):
        parts = os.path.relpath(path, base).split(os.sep)
        return parts[0] if len(parts) > 1 else "."

    unknown = sorted({folder(path) for path in files} - set(order))
    if unknown:
        print(f"{module}: folders without a place in Scripts/folder-edges.py's order: {', '.join(unknown)}")
        return 1
    rank = {name: index for index, name in enumerate(order)}
    declared = collections.defaultdict(set)
    for path, code in files.items():
        for match in TOP_LEVEL.finditer(code):
            declared[match.group(1)].add(folder(path))
    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    for path, code in files.items():
        own = set(DECLARATION.findall(code)) | set(GENERIC_PARAMETER.findall(code))
        source = folder(path)
        for name in set(NAME.findall(code)) - own:
            for target in declared.get(name, ()):
                if target != source:
                    edges[source][target].add((os.path.relpath(path, ROOT), name))
    backward = 0
    for source in sorted(edges, key=rank.get):
        for target in sorted(edges[source], key=rank.get):
            if show_edges:
                print(f"{module}: {source} -> {target} ({len(edges[source][target])})")
            if rank[target] > rank[source]:
                for path, name in sorted(edges[source][target]):
                    print(f"backward: {module}: {source} -> {target}: {path} names {name}")
                    backward += 1
    return backward


def main():
    show_edges = "--edges" in sys.argv[1:]
    backward = sum(check(module, order, show_edges) for module, order in ORDER.items())
    if backward:
        print(f"{backward} backward references between folders (the order is in Scripts/folder-edges.py)")
        return 1
    print("Folder edges: every reference runs forward (" + "; ".join(
        f"{module}: {' → '.join(order)}" for module, order in ORDER.items()) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
