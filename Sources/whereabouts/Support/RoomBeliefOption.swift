import ArgumentParser
import Whereabouts

/// `--room-belief`: follow rooms with a ``PlaceBelief`` per device (a sticky filter over the
/// rooms fed with each fix's shares) and a monitor that takes the room of its majority, rather
/// than each fix's own room and the monitor's votes.
struct RoomBeliefOption: ParsableArguments {
    @Flag(name: .long, help: ArgumentHelp(
        "Follow rooms with a belief carried from scan to scan, fed with each fix's shares of the rooms, and enter the room holding most of it: for rooms not much bigger than the fixes' accuracy radius, where each fix alone spreads over several (--place-vote does not apply). With --algorithm posterior the fixes carry the tracker's own belief in each room, which the monitor already follows; this filters it again, which helps only where rooms are far smaller than the fixes' accuracy."))
    var roomBelief = false

    /// Refuses `--room-belief` with a `--place-vote` other than the default.
    func validate(with placeVote: PlaceVoteOption) throws {
        if roomBelief, placeVote.placeVote != PlaceMonitor.Configuration().minimumProbability {
            throw ValidationError("--place-vote does not apply with --room-belief: the room holding most of the belief is entered.")
        }
    }

    /// The belief's settings, when asked for.
    var belief: PlaceBelief.Configuration? { roomBelief ? PlaceBelief.Configuration() : nil }

    /// The place monitor's settings: following the belief, or voting at `placeVote`.
    func monitor(placeVote: Double, exitTimeout: Double? = nil) -> PlaceMonitor.Configuration {
        var configuration = roomBelief ? PlaceMonitor.Configuration.followingBelief : PlaceMonitor.Configuration(minimumProbability: placeVote)
        if let exitTimeout { configuration.exitTimeout = exitTimeout }
        return configuration
    }
}
