import ArgumentParser
import Whereabouts

/// `--place-vote`: the share of a fix (or a room classifier's probability) a place needs before
/// a scan votes for it in the place monitor's hysteresis (``PlaceMonitor/Configuration/minimumProbability``).
struct PlaceVoteOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The share of a fix (or a room classifier's probability) a place needs for a scan to vote for it in the place monitor, 0–1; lower it for rooms not much bigger than the fixes' accuracy radius. With --algorithm posterior, whose fixes carry the tracker's own belief in each room, a room holding half of it (or this share, when lower) is entered at once, without votes.",
        valueName: "share"))
    var placeVote: Double = PlaceMonitor.Configuration().minimumProbability

    func validate() throws {
        guard placeVote.isFinite, (0...1).contains(placeVote) else {
            throw ValidationError("--place-vote must be a share between 0 and 1 (default \(PlaceMonitor.Configuration().minimumProbability)).")
        }
    }
}
