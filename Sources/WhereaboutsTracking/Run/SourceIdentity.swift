import Foundation

/// Where a ``TrackingRun``'s fixes come from: the name its checkpoint is kept under (the resume
/// key), whether it is a replay whose already decided fixes a restart passes over, and how many
/// fixes it decides per durable write.
///
/// A replay is known by its file's absolute path and size, so that a run started again on the
/// same recording resumes it while an edited or different file starts afresh.
///
/// ```swift
/// let source = SourceIdentity.replay(ofFile: "walk.jsonl")   // replay:/home/ann/walk.jsonl:18204
/// source.skipsDecidedFixes   // true
/// source.lotSize             // 256
/// SourceIdentity.adapter("hci0").lotSize   // 1: each fix is written as it comes
/// ```
public enum SourceIdentity: Hashable, Sendable {
    /// A recording or capture replayed from a file: its absolute path and its size in bytes.
    case replay(path: String, size: Int)
    /// A live Bluetooth adapter, by name.
    case adapter(String)
    /// Standard input (a pipe): read as it comes, and not resumable (a pipe cannot be read twice).
    case standardInput
    /// A source of the caller's naming (an app's position feed): its checkpoint is resumed, its
    /// fixes are never passed over.
    case named(String)

    /// The replay of the file at `path`: its standardized absolute path and its size (0 when it
    /// cannot be read).
    public static func replay(ofFile path: String) -> SourceIdentity {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let size = (try? FileManager.default.attributesOfItem(atPath: absolute)[.size] as? NSNumber)?.intValue ?? 0
        return .replay(path: absolute, size: size)
    }

    /// The name the run's checkpoint is kept under in the outbox.
    public var checkpointName: String {
        switch self {
        case .replay(let path, let size): "replay:\(path):\(size)"
        case .adapter(let name): "adapter:\(name)"
        case .standardInput: "stdin"
        case .named(let name): name
        }
    }

    /// Whether a restart passes over the fixes an interrupted run already decided (and keeps its
    /// time shift): true for a replay only.
    public var skipsDecidedFixes: Bool {
        if case .replay = self { return true }
        return false
    }

    /// Fixes decided per durable write: 256 for a replay (one sync for many fixes), 1 for
    /// anything that comes as it happens, so that each fix is on disk, and on its way, at once.
    public var lotSize: Int { skipsDecidedFixes ? 256 : 1 }
}
