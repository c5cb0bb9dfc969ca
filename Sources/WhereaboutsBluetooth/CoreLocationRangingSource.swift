#if canImport(CoreLocation) && os(iOS)
import CoreLocation
import Foundation
import Whereabouts

/// Beacon ranging with CoreLocation as an `AsyncSequence` of `Scan`s, one per ranging
/// callback that heard a beacon (iOS; the app needs "when in use" location authorisation).
///
/// ```swift
/// let source = CoreLocationRangingSource(uuids: [venueUUID])
/// for await scan in source.scans() { engine.locate(scan) }
/// ```
///
/// The conversion is ``BeaconRanging``'s; this type only wires CoreLocation to it.
@MainActor
public final class CoreLocationRangingSource: NSObject, CLLocationManagerDelegate, PausableScanning {
    /// The proximity UUIDs ranged.
    public let uuids: [UUID]
    /// The `device` of the scans made.
    public let device: String?
    private let manager = CLLocationManager()
    private var continuation: AsyncStream<Scan>.Continuation?

    /// A source ranging the beacons of `uuids`.
    public init(uuids: [UUID], device: String? = nil) {
        self.uuids = uuids
        self.device = device
        super.init()
        manager.delegate = self
    }

    /// Starts ranging (asking for authorisation when needed); ranging stops when the stream's
    /// consumer stops.
    public func scans() -> AsyncStream<Scan> {
        AsyncStream { continuation in
            self.continuation = continuation
            continuation.onTermination = { _ in Task { @MainActor in self.stop() } }
            manager.requestWhenInUseAuthorization()
            for uuid in uuids { manager.startRangingBeacons(satisfying: CLBeaconIdentityConstraint(uuid: uuid)) }
        }
    }

    /// ``scans()`` as a live source: what runs over it (a facade's `startScanning`, a
    /// `ScanTimeline`) moves on between ranging callbacks, so exits fall due on time.
    public func liveScans() -> PacedScanSequence<AsyncStream<Scan>> {
        scans().paced(.live(ContinuousClock()))
    }

    private func stop() {
        for uuid in uuids { manager.stopRangingBeacons(satisfying: CLBeaconIdentityConstraint(uuid: uuid)) }
        continuation = nil
    }

    /// Stops ranging until ``resumeScanning()`` (NaviBeacon's and Bluenet's pause: the radio
    /// rests); the scans wait meanwhile.
    public nonisolated func pauseScanning() {
        Task { @MainActor in
            for uuid in self.uuids { self.manager.stopRangingBeacons(satisfying: CLBeaconIdentityConstraint(uuid: uuid)) }
        }
    }

    /// Ranges again, while the scans are being read.
    public nonisolated func resumeScanning() {
        Task { @MainActor in
            guard self.continuation != nil else { return }
            for uuid in self.uuids { self.manager.startRangingBeacons(satisfying: CLBeaconIdentityConstraint(uuid: uuid)) }
        }
    }

    nonisolated public func locationManager(_ manager: CLLocationManager, didRange beacons: [CLBeacon],
                                            satisfying constraint: CLBeaconIdentityConstraint) {
        let ranged = beacons.map {
            BeaconRanging.Report(uuid: $0.uuid, major: $0.major.intValue, minor: $0.minor.intValue,
                                       rssi: $0.rssi, accuracy: $0.accuracy)
        }
        let time = Date().timeIntervalSince1970
        MainActor.assumeIsolated {
            if let scan = BeaconRanging.scan(of: ranged, at: time, device: device) { continuation?.yield(scan) }
        }
    }
}
#endif
