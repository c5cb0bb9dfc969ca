import Foundation

extension URL {
    /// The size of the file in bytes, or 0 when unknown.
    var fileSize: Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
