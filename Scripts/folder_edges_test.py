"""Scripts/folder-edges.py on small made-up modules: what counts as a use of a later folder.

    python3 -m unittest discover -s Scripts -p folder_edges_test.py -v

Each test writes a Sources/ folder of a few Swift files and checks the lines the script prints.
"""

import importlib.util
import os
import shutil
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("folder_edges", os.path.join(HERE, "folder-edges.py"))
folder_edges = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(folder_edges)

# Every test's module: Early comes before Late, and Late/Inner after Late.
ORDER = {"Module": ["Early", "Late", "Late/Inner"]}
LATE = """
public struct Later {
    public init() {}
}
"""


class FolderEdgesTests(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="folder-edges-test-")
        self.addCleanup(shutil.rmtree, self.root)

    def write(self, path, code):
        path = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as file:
            file.write(textwrap.dedent(code))

    def run_check(self, order=ORDER, show_edges=False):
        """The script's status and the lines it prints, on the Sources/ written so far."""
        lines = []
        status = folder_edges.run(self.root, order, show_edges=show_edges, say=lines.append)
        return status, lines

    def backward(self, order=ORDER):
        status, lines = self.run_check(order)
        found = [line for line in lines if line.startswith("backward: ")]
        self.assertEqual(status, 1 if found else 0, lines)
        return found

    # --- Types ----------------------------------------------------------------------------------

    def test_a_type_of_a_later_folder_is_a_backward_reference(self):
        self.write("Module/Late/Later.swift", LATE)
        self.write("Module/Early/Uses.swift", "func make() -> Later { Later() }\n")
        self.assertEqual(self.backward(),
                         ["backward: Module: Early -> Late: Module/Early/Uses.swift names Later"])

    def test_a_type_of_an_earlier_folder_is_not(self):
        self.write("Module/Early/Earlier.swift", "public struct Earlier {}\n")
        self.write("Module/Late/Uses.swift", "let earlier = Earlier()\n")
        self.assertEqual(self.backward(), [])

    def test_comments_and_strings_do_not_count_but_interpolations_do(self):
        self.write("Module/Late/Later.swift", LATE)
        self.write("Module/Early/Quiet.swift", """
            // Later
            /* Later /* nested */ Later */
            let text = "Later \\"Later\\""
            let raw = #"Later "quoted" Later"#
            let block = \"\"\"
                Later
                \"\"\"
            """)
        self.assertEqual(self.backward(), [])
        self.write("Module/Early/Loud.swift", 'let text = "made: \\(Later())"\n')
        self.assertEqual(self.backward(),
                         ["backward: Module: Early -> Late: Module/Early/Loud.swift names Later"])

    def test_a_nested_type_of_the_same_name_does_not_count(self):
        self.write("Module/Late/Later.swift", LATE)
        self.write("Module/Early/Own.swift", "struct Outer {\n    struct Later {}\n    let inner: Later\n}\n")
        self.assertEqual(self.backward(), [])

    # --- Generic parameters -----------------------------------------------------------------------

    def test_a_generic_argument_does_not_hide_a_name(self):
        # `Array<Later>` and `Box<Later>` use Later; they declare nothing.
        self.write("Module/Late/Later.swift", LATE)
        self.write("Module/Early/Box.swift", """
            struct Box<Content> { var content: Content }
            let boxes: Array<Later> = []
            let box: Box<Later>? = nil
            """)
        self.assertEqual(self.backward(),
                         ["backward: Module: Early -> Late: Module/Early/Box.swift names Later"])

    def test_a_generic_parameter_hides_a_name_within_its_declaration_only(self):
        self.write("Module/Late/Later.swift", LATE)
        self.write("Module/Early/Generic.swift", """
            func first<Later: Sequence>(of values: Later) -> Later.Element? where Later: Sendable {
                var iterator = values.makeIterator()
                return iterator.next()
            }
            struct Pair<Later, Other> { var left: Later; var right: Other }
            extension Pair {
                init<Later>(_ value: Later) where Later == Other { fatalError() }
                subscript<Later>(key: Later) -> Int { 0 }
            }
            typealias Same<Later> = Pair<Later, Later>
            """)
        self.assertEqual(self.backward(), [])
        # The same name after the declaration's end is a use.
        self.write("Module/Early/Generic.swift", """
            func identity<Later>(_ value: Later) -> Later { value }
            let made = Later()
            """)
        self.assertEqual(self.backward(),
                         ["backward: Module: Early -> Late: Module/Early/Generic.swift names Later"])

    # --- Members added in extensions --------------------------------------------------------------

    def test_a_member_added_in_a_later_folder_is_seen(self):
        self.write("Module/Late/UInt8+Hex.swift", """
            extension UInt8 {
                var hexNibble: UInt8? { nil }
                static func fromHexNibble(_ value: UInt8) -> UInt8 { value }
                init?(hexDigit: Character) { return nil }
            }
            """)
        self.write("Module/Early/Property.swift", "let nibble = UInt8(0x41).hexNibble\n")
        self.write("Module/Early/Static.swift", "let byte: UInt8 = .fromHexNibble(1)\n")
        self.write("Module/Early/Initialiser.swift", 'let digit = UInt8(hexDigit: "a")\n')
        self.assertEqual(self.backward(), [
            "backward: Module: Early -> Late: Module/Early/Initialiser.swift names UInt8.init(hexDigit:)",
            "backward: Module: Early -> Late: Module/Early/Property.swift names UInt8.hexNibble",
            "backward: Module: Early -> Late: Module/Early/Static.swift names UInt8.fromHexNibble",
        ])

    def test_a_member_of_an_own_type_added_in_a_later_folder_is_seen(self):
        self.write("Module/Early/Earlier.swift", "public struct Earlier {}\nlet made = Earlier().madeLater()\n")
        self.write("Module/Late/Earlier+Later.swift", "extension Earlier {\n    func madeLater() -> Int { 1 }\n}\n")
        self.assertEqual(self.backward(),
                         ["backward: Module: Early -> Late: Module/Early/Earlier.swift names Earlier.madeLater"])

    def test_a_member_whose_name_does_not_tell_it_apart_is_not_counted(self):
        self.write("Module/Late/Extensions.swift", """
            extension UInt8 {
                var description: String { "" }
                private var hidden: Int { 0 }
                var shared: Int { 0 }
            }
            """)
        # `shared` is also a member in Early: a `.shared` there may be either.
        self.write("Module/Early/Other.swift", "struct Other { var shared: Int }\n")
        self.write("Module/Early/Uses.swift", """
            let text = UInt8(1).description
            let other = Other(shared: 1).shared
            func hidden() -> Int { 0 }
            let value = hidden()
            """)
        self.assertEqual(self.backward(), [])

    def test_a_member_used_in_its_own_folder_or_later_is_fine(self):
        self.write("Module/Early/Double+Degrees.swift", "extension Double {\n    var inDegrees: Double { self }\n}\n")
        self.write("Module/Late/Angle.swift", "let angle = 1.0.inDegrees\n")
        self.assertEqual(self.backward(), [])

    # --- Sub-folders ------------------------------------------------------------------------------

    def test_a_sub_folder_has_its_own_place(self):
        self.write("Module/Late/Inner/Deep.swift", "public struct Deep {}\n")
        self.write("Module/Late/Shallow.swift", "let deep = Deep()\n")
        self.assertEqual(self.backward(),
                         ["backward: Module: Late -> Late/Inner: Module/Late/Shallow.swift names Deep"])
        # In the other order the same reference runs forward.
        self.assertEqual(self.backward({"Module": ["Early", "Late/Inner", "Late"]}), [])

    def test_a_folder_without_a_place_is_an_error(self):
        self.write("Module/Late/Unlisted/File.swift", "struct Unlisted {}\n")
        status, lines = self.run_check()
        self.assertEqual(status, 1)
        self.assertIn("Module: folders without a place in Scripts/folder-edges.py's order: Late/Unlisted", lines)

    def test_a_module_with_folders_and_no_order_is_an_error(self):
        self.write("Module/Early/File.swift", "struct A {}\n")
        self.write("Other/Folder/File.swift", "struct B {}\n")
        self.write("Flat/File.swift", "struct C {}\n")
        status, lines = self.run_check()
        self.assertEqual(status, 1)
        self.assertIn("Other: a module with folders and no order in Scripts/folder-edges.py", lines)
        self.assertFalse(any(line.startswith("Flat") for line in lines), lines)

    def test_edges_are_printed_with_their_counts(self):
        self.write("Module/Early/Earlier.swift", "public struct Earlier {}\npublic struct Sooner {}\n")
        self.write("Module/Late/Uses.swift", "let pair = (Earlier(), Sooner())\n")
        status, lines = self.run_check(show_edges=True)
        self.assertEqual(status, 0)
        self.assertIn("Module: Late -> Early (2)", lines)


if __name__ == "__main__":
    unittest.main()
