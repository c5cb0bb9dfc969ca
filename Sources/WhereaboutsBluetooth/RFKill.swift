import Foundation

/// Reads the rfkill state of a Bluetooth adapter from sysfs
/// (`/sys/class/bluetooth/hci0/rfkill*/soft` and `hard`).
public enum RFKill {
    /// The blocks on an adapter.
    public struct State: Hashable, Sendable {
        /// Blocked by software (`rfkill block`).
        public var soft: Bool
        /// Blocked by a hardware switch.
        public var hard: Bool
        /// Creates a state.
        public init(soft: Bool, hard: Bool) {
            self.soft = soft
            self.hard = hard
        }
        /// Whether either block is on.
        public var isBlocked: Bool { soft || hard }
    }

    /// The rfkill state of `adapter`, or `nil` when sysfs has no rfkill switch for it.
    ///
    /// - Parameters:
    ///   - adapter: The adapter's name, such as `hci0`.
    ///   - root: The sysfs class directory of Bluetooth adapters (changed by tests).
    public static func state(of adapter: String, root: URL = URL(fileURLWithPath: "/sys/class/bluetooth")) -> State? {
        let directory = root.appendingPathComponent(adapter)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return nil }
        var found: State?
        for entry in entries.sorted() where entry.hasPrefix("rfkill") {
            let path = directory.appendingPathComponent(entry)
            func flag(_ name: String) -> Bool {
                let text = (try? String(contentsOf: path.appendingPathComponent(name), encoding: .utf8)) ?? "0"
                return text.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
            }
            let state = State(soft: flag("soft"), hard: flag("hard"))
            found = State(soft: (found?.soft ?? false) || state.soft, hard: (found?.hard ?? false) || state.hard)
        }
        return found
    }
}
