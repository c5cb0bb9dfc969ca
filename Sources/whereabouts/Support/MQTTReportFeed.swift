import Foundation
import Whereabouts
import WhereaboutsMQTT
import WhereaboutsServer

/// ESPresense's messages on a broker as a server's way in for receivers' reports
/// (`serve --mqtt`): the bridge forwards each message's report to the server's fusion and
/// publishes the outputs the server gives back, as `bridge` does on its own.
struct MQTTReportFeed: ReceiverReportFeed {
    let user: String
    /// `mqtt-bridge`, or `mqtt-bridge-1of2` for one of several processes (the events' author).
    let name: String
    let bridge: ESPresenseBridge
    /// The connection: when the server stops it is closed without a goodbye, so the broker
    /// publishes its will (`offline`) and Home Assistant shows the tags unavailable.
    let connection: MQTTConnection

    func run(deliver: @escaping @Sendable ([Scan]) async -> Void) async throws {
        let (bridge, connection) = (bridge, connection)
        defer { connection.task.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            // The connection's task ends only with what reconnecting cannot mend (a refused password).
            group.addTask {
                try await withTaskCancellationHandler { try await connection.task.value } onCancel: { connection.task.cancel() }
            }
            group.addTask { try await bridge.forward(to: deliver) }
            do {
                try await group.next()
            } catch let error as MQTTError {
                group.cancelAll()
                throw error
            }
            group.cancelAll()
        }
    }

    func publish(_ outputs: [TagPipeline.Output]) async {
        await bridge.publish(outputs)
    }
}
