import Foundation
import Testing
@testable import Whereabouts

/// The reports of long work reach the handler bound to the task, stage by stage, from nothing
/// done to all done, and change nothing about the work itself.
@Suite("Progress of long work")
struct WorkProgressTests {
    /// Every report heard while `body` runs.
    private func reports<Result>(_ body: () throws -> Result) rethrows -> (Result, [WorkProgress]) {
        let heard = LockedValue<[WorkProgress]>([])
        let result = try WorkProgress.$handler.withValue({ progress in heard.withValue { $0.append(progress) } }, operation: body)
        return (result, heard.value)
    }

    /// Checks that each stage's reports never go back, and that each ends with all of it done.
    private func expectStagesRunToTheEnd(_ reports: [WorkProgress], sourceLocation: SourceLocation = #_sourceLocation) {
        var last: [String: WorkProgress] = [:]
        for report in reports {
            if let previous = last[report.stage] {
                #expect(report.total == previous.total, "\(report.stage)", sourceLocation: sourceLocation)
                #expect(report.completed >= previous.completed, "\(report.stage) went back", sourceLocation: sourceLocation)
            }
            last[report.stage] = report
        }
        for (stage, report) in last {
            #expect(report.completed == report.total, "\(stage) ended at \(report)", sourceLocation: sourceLocation)
        }
    }

    @Test func theDefaultAlgorithmsTrainingReportsEachStage() throws {
        let preset = SimulationPreset.example
        let training = Array(preset.simulator(seed: 5))
        let (setup, heard) = reports { PositioningAlgorithm.default.setup(venue: preset.venue, training: training) }
        let stages = heard.map(\.stage).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(stages == ["fitting each beacon", "tuning the fingerprints", "fingerprints of the validation folds",
                           "validation replay"])
        expectStagesRunToTheEnd(heard)
        #expect(heard.first { $0.stage == "validation replay" }?.completed == 0)
        // Nothing listening: the same solver.
        let unheard = PositioningAlgorithm.default.setup(venue: preset.venue, training: training)
        #expect((setup.solver as? DefaultSolver)?.validationError == (unheard.solver as? DefaultSolver)?.validationError)
        #expect(setup.configuration.filter == unheard.configuration.filter)
        #expect(setup.configuration.tracking?.model == unheard.configuration.tracking?.model)
    }

    @Test func aRoomClassifiersCrossValidationAndACalibrationReport() throws {
        let survey = RoomTestData.survey(means: RoomTestData.fourPlaces, count: 30, sigma: 4, seed: 3)
        let (_, classifierReports) = reports { DefaultPlaceClassifier(training: PlaceTrainingSet(scans: survey)) }
        #expect(Set(classifierReports.map(\.stage)) == ["cross-validating the room classifier's settings"])
        expectStagesRunToTheEnd(classifierReports)

        let preset = SimulationPreset.example
        let (_, calibrationReports) = try reports {
            try Calibration.fit(preset.simulator(seed: 2), in: preset.venue)
        }
        #expect(Set(calibrationReports.map(\.stage)) == ["fitting each beacon"])
        expectStagesRunToTheEnd(calibrationReports)
    }

    @Test func reportsAreBounded() {
        #expect(WorkProgress(stage: "s", completed: 5, total: 0) == WorkProgress(stage: "s", completed: 1, total: 1))
        #expect(WorkProgress(stage: "s", completed: -2, total: 4).fraction == 0)
        #expect(WorkProgress(stage: "s", completed: 3, total: 4).description == "s (3/4)")
    }
}
