/// What every per-device ``Locator`` of a pipeline is made from — the venue, the solver and the
/// configuration — held once and shared by reference, so that moving a pipeline's state or
/// starting a device's slot costs one reference count, not one per array of the venue.
final class LocatorParts: Sendable {
    /// The venue.
    let venue: PositioningVenue
    /// The solver each locator uses.
    let solver: any PositionSolver
    /// The configuration of each locator.
    let configuration: LocatorConfiguration

    init(venue: PositioningVenue, solver: any PositionSolver, configuration: LocatorConfiguration) {
        self.venue = venue
        self.solver = solver
        self.configuration = configuration
    }

    /// A fresh locator.
    func makeLocator() -> Locator {
        Locator(venue: venue, solver: solver, configuration: configuration)
    }
}
