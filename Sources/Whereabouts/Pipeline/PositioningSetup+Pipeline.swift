/// The pipeline stages a setup makes: they wrap positioning, so they are declared here, after it.
extension PositioningSetup {
    /// Fresh per-device locators for this setup.
    package func makeLocators() -> DeviceLocators {
        DeviceLocators(setup: self)
    }

    /// A pipeline of fixes for this setup, with the given timing.
    public func makePipeline(timing: FixPipeline.Timing = .immediate) -> FixPipeline {
        FixPipeline(setup: self, timing: timing)
    }
}
