import Foundation
import Whereabouts

/// What CoreLocation's beacon ranging reports, as plain values, and how it becomes readings and
/// scans. The logic of `CoreLocationRangingSource` (Apple platforms), testable anywhere.
///
/// ```swift
/// let beacon = BeaconRanging.Report(uuid: uuid, major: 1, minor: 2, rssi: -67, accuracy: 1.8)
/// let scan = BeaconRanging.scan(of: [beacon], at: Date().timeIntervalSince1970)
/// ```
public enum BeaconRanging {
    /// One `CLBeacon` of a ranging callback.
    public struct Report: Hashable, Sendable {
        /// The proximity UUID.
        public var uuid: UUID
        /// The major value (`CLBeacon.major`).
        public var major: Int
        /// The minor value (`CLBeacon.minor`).
        public var minor: Int
        /// The RSSI averaged over the ranging second, in dBm; CoreLocation reports 0 when the
        /// beacon was not heard in that second.
        public var rssi: Int
        /// CoreLocation's distance estimate in metres; negative when unknown.
        public var accuracy: Double

        /// Creates a ranged beacon.
        public init(uuid: UUID, major: Int, minor: Int, rssi: Int, accuracy: Double) {
            self.uuid = uuid
            self.major = major
            self.minor = minor
            self.rssi = rssi
            self.accuracy = accuracy
        }
    }

    /// The reading of a ranged beacon, or `nil` when it was not heard this second (RSSI 0 or
    /// positive) or its major or minor is outside 0…65535.
    ///
    /// CoreLocation's `accuracy`, its own distance estimate, becomes the reading's
    /// `Reading.distance` when it is positive (positioning then takes it as the range, as
    /// IBeaconLocation did); a negative accuracy (unknown) is left out.
    public static func reading(uuid: UUID, major: Int, minor: Int, rssi: Int, accuracy: Double) -> Reading? {
        guard rssi < 0, let major = UInt16(exactly: major), let minor = UInt16(exactly: minor) else { return nil }
        let distance = accuracy > 0 && accuracy.isFinite ? accuracy : nil
        return Reading(beacon: .iBeacon(IBeaconIdentity(uuid: uuid, major: major, minor: minor)), rssi: Double(rssi),
                       distance: distance)
    }

    /// The reading of a ranged beacon; see ``reading(uuid:major:minor:rssi:accuracy:)``.
    public static func reading(_ beacon: Report) -> Reading? {
        reading(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor, rssi: beacon.rssi, accuracy: beacon.accuracy)
    }

    /// The scan of one ranging callback at `time` (seconds since 1970): a reading per beacon
    /// heard, or `nil` when none was.
    public static func scan(of beacons: [Report], at time: Double, device: String? = nil) -> Scan? {
        let readings = beacons.compactMap(reading)
        return readings.isEmpty ? nil : Scan(time: time, device: device, readings: readings)
    }
}
