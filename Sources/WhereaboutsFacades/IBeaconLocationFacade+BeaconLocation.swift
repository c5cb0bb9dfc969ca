import Foundation
import Whereabouts

/// IBeaconLocation's entry point: a UUID's floor and processor.
extension IBeaconLocationFacade {
    /// IBeaconLocation's entry point: the beacons of one proximity UUID (``floor``) and the
    /// positioning of a device among them (``processor``), fed by any source of ranging rounds —
    /// CoreLocation on Apple platforms, the BlueZ scanner, a btsnoop capture or a recording.
    ///
    /// ```swift
    /// let location = try BeaconLocation(uuidString: "01234567-89AB-CDEF-0123-456789ABCDEF", identifier: "office")
    /// location.floor.addBeacon(major: 1, minor: 1, x: 0, y: 0)
    /// location.floor.addBeacon(major: 1, minor: 2, x: 10, y: 0)
    /// location.floor.addBeacon(major: 1, minor: 3, x: 0, y: 10)
    /// location.processor.setPositionHandler { fix in print(fix.point.x, fix.point.y) }
    /// try await location.startRanging(RecordingReader(url: recording))
    /// ```
    public final class BeaconLocation: Sendable {
        /// The proximity UUID ranged.
        public let uuid: UUID
        /// The region's identifier.
        public let identifier: String
        /// The beacons.
        public let floor: Floor
        /// The positioning.
        public let processor: Processor

        /// Creates the library for a UUID (IBeaconLocation's `initWithUUID:identifier:`).
        public init(uuid: UUID, identifier: String) {
            self.uuid = uuid
            self.identifier = identifier
            floor = Floor(uuid: uuid)
            processor = Processor(floor: floor)
        }

        /// Creates the library for a UUID given as a string (`initWithUUIDString:identifier:`).
        public convenience init(uuidString: String, identifier: String) throws(BeaconLocationError) {
            guard let uuid = UUID(uuidString: uuidString) else { throw .invalidUUID(uuidString) }
            self.init(uuid: uuid, identifier: identifier)
        }

        /// Positions from every ranging round of a source until it ends (the processor's callback
        /// hears each position); fails when the source fails.
        public func startRanging<Scans: AsyncSequence>(_ scans: Scans) async throws where Scans.Element == Scan {
            for try await scan in scans { await processor.process(scan) }
        }
    }
}
