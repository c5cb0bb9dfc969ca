import Foundation

// The library's former names, each forwarding to the name that replaced it.

/// The former name of ``ValidatedSettings`` (it names settings, not a pipeline).
@available(*, deprecated, renamed: "ValidatedSettings")
public typealias ValidatedPipeline = ValidatedSettings

extension PositionSolver {
    /// The former name of ``validatedSettings``.
    @available(*, deprecated, renamed: "validatedSettings")
    public var validatedPipeline: ValidatedSettings? { validatedSettings }
}

extension FingerprintSolver {
    /// The former name of ``Options`` (a solver's settings are its options; a configuration is
    /// how a running stage behaves).
    @available(*, deprecated, renamed: "Options")
    public typealias Configuration = Options

    /// The former form of ``init(venue:training:options:)``.
    @available(*, deprecated, renamed: "init(venue:training:options:)")
    public init(venue: PositioningVenue, training: [Scan], configuration: Options) {
        self.init(venue: venue, training: training, options: configuration)
    }
}

extension EventHub {
    /// The former name of ``watch(uuid:referenceId:)`` ("track" now names a device's trajectory only).
    @available(*, deprecated, renamed: "watch(uuid:referenceId:)")
    public func track(uuid: UUID, referenceId: String) { watch(uuid: uuid, referenceId: referenceId) }

    /// The former name of ``watch(_:)``.
    @available(*, deprecated, renamed: "watch(_:)")
    public func track(_ region: BeaconRegion) { watch(region) }

    /// The former name of ``stopWatching(uuid:)``.
    @available(*, deprecated, renamed: "stopWatching(uuid:)")
    public func stopTracking(uuid: UUID) { stopWatching(uuid: uuid) }

    /// The former name of ``stopWatchingAll()``.
    @available(*, deprecated, renamed: "stopWatchingAll()")
    public func clearTracked() { stopWatchingAll() }

    /// The former name of ``watchedRegions``.
    @available(*, deprecated, renamed: "watchedRegions")
    public var trackedRegions: [BeaconRegion] { watchedRegions }
}
