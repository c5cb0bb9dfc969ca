import Foundation
import Whereabouts

/// IBeaconLocation's API — `BeaconLocation`, `Floor`, `Beacon`, `Processor`, `AlgorithmType` —
/// backed by the Whereabouts engine: the beacon map is a `Venue` changed in place, the processor a
/// `LocationEngine` reconfigured when the map or the algorithms change, the algorithms the
/// engine's solvers (`PowerCenter`, `SphereIntersection`, `EPTA`) and their trusts a
/// `PositioningMethod.fusion`.
///
/// The namespace of the facade: its types are named as IBeaconLocation named them, under
/// `IBeaconLocationFacade.`, so that `import WhereaboutsFacades` adds no generic name to an app (declare a
/// `typealias` for the names you use unqualified).
public enum IBeaconLocationFacade {
    /// IBeaconLocation's positioning algorithms.
    public enum AlgorithmType: String, Hashable, Sendable, CaseIterable {
        /// The enhanced positioning trilateration algorithm (the engine's `EPTA`).
        case epta
        /// The radical centre of three circles (the engine's `PowerCenter`); the default.
        case powerCenter
        /// Three-sphere trilateration (the engine's `SphereIntersection`).
        case sphereIntersection
        /// The ``Processor/customAlgorithm``.
        case custom
    }

    /// A beacon of the map: its major and minor under the map's UUID, and where it is, metres.
    public struct Beacon: Hashable, Sendable {
        /// The major value.
        public var major: UInt16
        /// The minor value.
        public var minor: UInt16
        /// East coordinate, metres.
        public var x: Double
        /// North coordinate, metres.
        public var y: Double
        /// Height, metres.
        public var z: Double

        /// Creates a beacon.
        public init(major: UInt16, minor: UInt16, x: Double, y: Double, z: Double = 0) {
            self.major = major
            self.minor = minor
            self.x = x
            self.y = y
            self.z = z
        }
    }

    /// A beacon and the radius of its circle — CoreLocation's `accuracy`, or the range the engine
    /// derived from the RSSI — as a ``CustomAlgorithm`` receives them.
    public struct BeaconCircle: Hashable, Sendable {
        /// The beacon.
        public var beacon: Beacon
        /// The circle's radius, metres.
        public var accuracy: Double

        /// Creates a circle.
        public init(beacon: Beacon, accuracy: Double) {
            self.beacon = beacon
            self.accuracy = accuracy
        }
    }

    /// An algorithm of your own, IBeaconLocation's `customAlgorithm`: circles in, a point (metres)
    /// or nothing out.
    ///
    /// ```swift
    /// struct NearestBeacon: CustomAlgorithm {
    ///     func position(from circles: [BeaconCircle]) -> PlanarPoint? {
    ///         circles.min { $0.accuracy < $1.accuracy }.map { PlanarPoint(x: $0.beacon.x, y: $0.beacon.y) }
    ///     }
    /// }
    /// ```
    public protocol CustomAlgorithm: Sendable {
        /// The position the circles give, or `nil` when they give none.
        func position(from circles: [BeaconCircle]) -> PlanarPoint?
    }

    /// What IBeaconLocation's calls can refuse.
    public enum BeaconLocationError: Error, Hashable, Sendable, CustomStringConvertible {
        /// `.custom` was selected before a ``Processor/customAlgorithm`` was set.
        case customAlgorithmNotSet
        /// No algorithm was given.
        case noAlgorithm
        /// A trust is negative or not a number.
        case invalidTrust(AlgorithmType, Double)
        /// The algorithms and the trusts differ in number.
        case trustsMismatch(algorithms: Int, trusts: Int)
        /// The UUID string is not a UUID.
        case invalidUUID(String)

        /// What went wrong and what to do.
        public var description: String {
            switch self {
            case .customAlgorithmNotSet: "the custom algorithm was selected before one was set: set Processor.customAlgorithm first"
            case .noAlgorithm: "no algorithm was given: give at least one, e.g. .powerCenter"
            case .invalidTrust(let type, let trust): "the trust of \(type.rawValue) is \(trust): trusts must be 0 or more"
            case .trustsMismatch(let algorithms, let trusts): "\(algorithms) algorithms but \(trusts) trusts: give one trust per algorithm"
            case .invalidUUID(let text): "\"\(text)\" is not a UUID (expected e.g. 01234567-89AB-CDEF-0123-456789ABCDEF)"
            }
        }
    }
}
