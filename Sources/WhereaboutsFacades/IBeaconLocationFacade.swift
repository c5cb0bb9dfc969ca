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

    /// The beacon store of one proximity UUID, IBeaconLocation's `Floor`: add, look up and remove
    /// beacons by major and minor while positioning runs.
    ///
    /// ```swift
    /// location.floor.addBeacon(major: 1, minor: 1, x: 0, y: 0)
    /// location.floor.addBeacon(major: 1, minor: 2, position: PlanarPoint(x: 10, y: 0))
    /// location.floor.hasBeacon(major: 1, minor: 2)   // true
    /// ```
    public final class Floor: Sendable {
        /// The proximity UUID of every beacon of the floor.
        public let uuid: UUID
        private let map: LockedValue<(venue: Venue, revision: Int)>

        /// Creates an empty floor for a UUID.
        public init(uuid: UUID) {
            self.uuid = uuid
            map = LockedValue((Venue(), 0))
        }

        /// Adds (or moves) the beacon `major`/`minor` at x, y, z metres.
        public func addBeacon(major: UInt16, minor: UInt16, x: Double, y: Double, z: Double = 0) {
            let identity = IBeaconIdentity(uuid: uuid, major: major, minor: minor)
            map.withValue { map in
                map.venue.setBeacon(Venue.Beacon(id: "\(major)/\(minor)", iBeacon: identity, x: x, y: y, z: z == 0 ? nil : z))
                map.revision += 1
            }
        }

        /// Adds (or moves) the beacon `major`/`minor` at a point of the plan (IBeaconLocation's `inPosition:`).
        public func addBeacon(major: UInt16, minor: UInt16, position: PlanarPoint) {
            addBeacon(major: major, minor: minor, x: position.x, y: position.y)
        }

        /// Whether the floor has the beacon `major`/`minor`.
        public func hasBeacon(major: UInt16, minor: UInt16) -> Bool {
            beacon(major: major, minor: minor) != nil
        }

        /// The beacon `major`/`minor`, if the floor has it.
        public func beacon(major: UInt16, minor: UInt16) -> Beacon? {
            map.value.venue.beacon(IBeaconIdentity(uuid: uuid, major: major, minor: minor)).flatMap(Self.beacon)
        }

        /// Removes every beacon.
        public func removeAllBeacons() {
            map.withValue { map in
                map.venue.beacons = []
                map.revision += 1
            }
        }

        /// Removes the beacon `major`/`minor`.
        public func removeBeacon(major: UInt16, minor: UInt16) {
            map.withValue { map in
                if map.venue.removeBeacon(IBeaconIdentity(uuid: uuid, major: major, minor: minor)) { map.revision += 1 }
            }
        }

        /// The beacons, in the order added.
        public var beacons: [Beacon] { map.value.venue.beacons.compactMap(Self.beacon) }

        /// The map as a venue, and a number that changes with every change of it.
        var snapshot: (venue: Venue, revision: Int) { map.value }

        static func beacon(_ beacon: Venue.Beacon) -> Beacon? {
            guard let identity = beacon.iBeacon, let x = beacon.x, let y = beacon.y else { return nil }
            return Beacon(major: identity.major, minor: identity.minor, x: x, y: y, z: beacon.z ?? 0)
        }
    }

    /// IBeaconLocation's `Processor`: the position, recomputed from every ranging round by the
    /// algorithm (or the trusted mix of algorithms) chosen, PowerCenter by default.
    ///
    /// Each beacon's circle is CoreLocation's `accuracy` when the source reports it
    /// (`Reading.distance`), else the range the engine derives from the RSSI. Fewer than three
    /// usable circles give no position (`nil`), never a crash.
    ///
    /// ```swift
    /// try location.processor.setAlgorithmsAndTrusts([.epta: 5, .powerCenter: 10])   // PowerCenter twice as trusted
    /// location.processor.customAlgorithm = NearestBeacon()
    /// try location.processor.setAlgorithm(.custom)
    /// ```
    public final class Processor: Sendable {
        private struct AlgorithmChoice: Sendable {
            var algorithms: [(type: AlgorithmType, trust: Double)] = [(.powerCenter, 1)]
            var custom: (any CustomAlgorithm)?
            var revision = 0
        }

        private let floor: Floor
        private let settings = LockedValue(AlgorithmChoice())
        private let engine: LocationEngine
        /// The floor and settings revisions the engine was last configured with.
        private let configured = LockedValue<(floor: Int, settings: Int)>((-1, -1))
        private let latest = LockedValue<Fix?>(nil)
        private let positionHandler = LockedValue<(@Sendable (Fix) -> Void)?>(nil)

        /// The per-device pipeline IBeaconLocation ran: each ranging round's values as they are (no
        /// RSSI filter, no floor selection, no tracking), a beacon counted for a second after it
        /// was last heard.
        public static let locator = LocatorConfiguration(filter: nil, beaconTimeout: 1, floorSelection: nil, tracking: nil)

        init(floor: Floor) {
            self.floor = floor
            engine = LocationEngine(configuration: .init(venue: Venue(), method: .algorithm(.powerCenter), locator: Self.locator))
        }

        /// The algorithm ``AlgorithmType/custom`` runs. Set it before selecting `.custom`.
        public var customAlgorithm: (any CustomAlgorithm)? {
            get { settings.value.custom }
            set { settings.withValue { $0.custom = newValue; $0.revision += 1 } }
        }

        /// Positions with one algorithm, trust 1 (IBeaconLocation's `setAlgorithm:`).
        public func setAlgorithm(_ type: AlgorithmType) throws(BeaconLocationError) {
            try setAlgorithms([type], trusts: [1])
        }

        /// Positions with several algorithms, each answer weighted by its trust: the trusts are
        /// normalised to sum 1, all zero means equal (IBeaconLocation's `setAlgorithmsAndTrusts:`).
        public func setAlgorithms(_ algorithms: [AlgorithmType], trusts: [Double]) throws(BeaconLocationError) {
            guard !algorithms.isEmpty else { throw .noAlgorithm }
            guard algorithms.count == trusts.count else { throw .trustsMismatch(algorithms: algorithms.count, trusts: trusts.count) }
            for (type, trust) in zip(algorithms, trusts) where !(trust >= 0) || !trust.isFinite { throw .invalidTrust(type, trust) }
            let hasCustom = settings.value.custom != nil
            if algorithms.contains(.custom), !hasCustom { throw .customAlgorithmNotSet }
            settings.withValue { settings in
                settings.algorithms = Array(zip(algorithms, trusts)).map { ($0.0, $0.1) }
                settings.revision += 1
            }
        }

        /// ``setAlgorithms(_:trusts:)`` from IBeaconLocation's dictionary form, algorithms in
        /// ``AlgorithmType`` order.
        public func setAlgorithmsAndTrusts(_ trusts: [AlgorithmType: Double]) throws(BeaconLocationError) {
            let types = AlgorithmType.allCases.filter { trusts[$0] != nil }
            try setAlgorithms(types, trusts: types.map { trusts[$0] ?? 0 })
        }

        /// The algorithms and their trusts, as set.
        public var algorithms: [AlgorithmType: Double] {
            Dictionary(settings.value.algorithms.map { ($0.type, $0.trust) }, uniquingKeysWith: +)
        }

        /// The latest position, if one was found.
        public var position: Fix? { latest.value }

        /// Sets (or, with `nil`, removes) the callback that hears every new position.
        public func setPositionHandler(_ handler: (@Sendable (Fix) -> Void)?) {
            positionHandler.value = handler
        }

        /// Takes in one ranging round (a scan of the beacons heard) and returns the position it
        /// gives, if any.
        @discardableResult
        public func process(_ scan: Scan) async -> Fix? {
            let map = floor.snapshot
            let current = settings.value
            if configured.value != (map.revision, current.revision) {
                configured.value = (map.revision, current.revision)
                await engine.reconfigure(with: .init(venue: map.venue, method: Self.method(for: current), locator: Self.locator))
            }
            guard let fix = await engine.process(scan) else { return nil }
            latest.value = fix
            positionHandler.value?(fix)
            return fix
        }

        /// The engine's method for the settings: one algorithm, or their trust fusion.
        private static func method(for settings: AlgorithmChoice) -> PositioningMethod {
            let members = settings.algorithms.map { PositioningMethod.Member(method(for: $0.type, custom: settings.custom), trust: $0.trust) }
            return members.count == 1 ? members[0].method : .fusion(members)
        }

        private static func method(for type: AlgorithmType, custom: (any CustomAlgorithm)?) -> PositioningMethod {
            switch type {
            case .epta: .algorithm(.epta)
            case .powerCenter: .algorithm(.powerCenter)
            case .sphereIntersection: .algorithm(.sphereIntersection)
            case .custom:
                .solver(name: "custom") { venue in CustomAlgorithmSolver(algorithm: custom, venue: venue) }
            }
        }
    }

    /// A ``CustomAlgorithm`` as an engine solver: the observation's ranges become circles, the
    /// answer's radius is the circles' misfit at the point.
    struct CustomAlgorithmSolver: PositionSolver {
        let algorithm: (any CustomAlgorithm)?
        let venue: PositioningVenue

        var name: String { "custom" }

        func locate(_ observation: Observation) -> PositionEstimate? {
            guard let algorithm else { return nil }
            let circles = observation.ranges.compactMap { range -> BeaconCircle? in
                guard range.beaconIndex < venue.venue.beacons.count,
                      let beacon = Floor.beacon(venue.venue.beacons[range.beaconIndex]) else { return nil }
                return BeaconCircle(beacon: beacon, accuracy: range.distance)
            }
            guard let point = algorithm.position(from: circles), point.x.isFinite, point.y.isFinite else { return nil }
            let misfit = observation.rangeMisfit(at: point, receiverHeight: venue.receiverHeight) ?? 0
            return PositionEstimate(point: SpatialPoint(x: point.x, y: point.y, z: venue.receiverHeight), accuracy: misfit,
                                    beaconCount: circles.count)
        }
    }

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
