import Foundation
import Whereabouts

extension BTSnoopReplay {
    /// How fast to replay (now a `ScanPace`, the pace every part of the pipeline shares).
    @_documentation(visibility: internal)
    @available(*, deprecated, message: "Use ScanPace: .replay for asFastAsPossible, .live(ContinuousClock()) for recorded.")
    public enum Pace: Hashable, Sendable {
        /// As fast as the consumer takes the scans (`ScanPace/replay`).
        case asFastAsPossible
        /// With the capture's own gaps between events (`ScanPace/live(_:)` on the continuous clock).
        case recorded

        /// The `ScanPace` this pace is.
        var scanPace: ScanPace {
            switch self {
            case .asFastAsPossible: .replay
            case .recorded: .live(ContinuousClock())
            }
        }
    }

    /// A replay of the capture in `bytes`, at a pace of the old kind.
    @_documentation(visibility: internal)
    @available(*, deprecated, message: "Pass a ScanPace.")
    public init(bytes: [UInt8], decoder: SightingDecoder = SightingDecoder(), pace: Pace) throws(BTSnoopError) {
        try self.init(bytes: bytes, decoder: decoder, pace: pace.scanPace)
    }

    /// A replay of the capture at `url`, at a pace of the old kind.
    @_documentation(visibility: internal)
    @available(*, deprecated, message: "Pass a ScanPace.")
    public init(url: URL, decoder: SightingDecoder = SightingDecoder(), pace: Pace) throws(BTSnoopError) {
        try self.init(url: url, decoder: decoder, pace: pace.scanPace)
    }

    /// A replay from a reader, at a pace of the old kind.
    @_documentation(visibility: internal)
    @available(*, deprecated, message: "Pass a ScanPace.")
    public init(reader: BTSnoopReader, decoder: SightingDecoder = SightingDecoder(), pace: Pace) {
        self.init(reader: reader, decoder: decoder, pace: pace.scanPace)
    }
}
