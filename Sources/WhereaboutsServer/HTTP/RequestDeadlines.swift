import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// Closes an HTTP/1 connection whose client is late with a request's head or body (see
/// ``RequestTimeouts``). It sits right after the HTTP decoder, sees each request's parts and each
/// answer's end: the head deadline runs while the connection waits for a request (none in
/// progress, none being answered), the body deadline while a request's body is arriving. A
/// WebSocket upgrade takes it out of the pipeline: `/live` sockets have their own pings.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let timeouts: RequestTimeouts
    /// When the connection is closed unless its client is on time; `nil` while none runs.
    private var deadline: NIODeadline?
    /// The one timer of the connection and when it fires: at or before ``deadline``. Moving the
    /// deadline later (what every request does) leaves it be; when it fires early it goes again
    /// for the deadline — so a request costs no timer, where scheduling and cancelling two a
    /// request cost a few per cent of the server's time.
    private var timer: (task: Scheduled<Void>, firesAt: NIODeadline)?
    private var unanswered = 0
    private var readingBody = false

    init(timeouts: RequestTimeouts) {
        self.timeouts = timeouts
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(timeouts.head, context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancel()
        stopTimer()
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(timeouts.head, context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        stopTimer()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            unanswered += 1
            readingBody = true
            if !head.headers.contains(name: "upgrade") {
                arm(timeouts.body, context: context)
            } else {
                // A WebSocket handshake: what follows is not HTTP any more.
                cancel()
                context.fireChannelRead(data)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
        case .body:
            break
        case .end:
            readingBody = false
            // Answered already (a refusal sent before the body was read): the connection now
            // waits for its next request.
            if unanswered == 0 { arm(timeouts.head, context: context) } else { cancel() }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            unanswered = max(0, unanswered - 1)
            if unanswered == 0, !readingBody { arm(timeouts.head, context: context) }
        }
        context.write(data, promise: promise)
    }

    private func arm(_ timeout: Duration, context: ChannelHandlerContext) {
        let at = NIODeadline.now() + TimeAmount(timeout)
        deadline = at
        if let timer, timer.firesAt <= at { return }
        startTimer(at: at, channel: context.channel)
    }

    private func cancel() {
        deadline = nil
    }

    private func startTimer(at time: NIODeadline, channel: any Channel) {
        stopTimer()
        let handler = NIOLoopBound(self, eventLoop: channel.eventLoop)
        let task = channel.eventLoop.scheduleTask(deadline: time) {
            handler.value.timerFired(channel: channel)
        }
        timer = (task, time)
    }

    private func stopTimer() {
        timer?.task.cancel()
        timer = nil
    }

    /// Closes the connection when its deadline has passed, or sets the timer for the deadline.
    private func timerFired(channel: any Channel) {
        timer = nil
        guard let deadline else { return }
        if deadline <= .now() {
            channel.close(promise: nil)
        } else {
            startTimer(at: deadline, channel: channel)
        }
    }
}

/// The server's child channel: HTTP/1 with the `/live` WebSocket upgrade, and the request
/// deadlines installed as the connection is set up — before the first byte, which is where a
/// slow client does its harm (the upgrade channel adds its own idle handling only once a whole
/// request head has arrived).
struct DeadlineHTTPChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    let base: HTTP1WebSocketUpgradeChannel
    let timeouts: RequestTimeouts

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(RequestDeadlineHandler(timeouts: timeouts), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        var quieter = logger
        quieter.handler = ClosedBeforeRequestLogFilter(base: logger.handler)
        await base.handle(value: value, logger: quieter)
    }
}

/// Lets every message through but one: the WebSocket upgrade layer's error for a connection that
/// closed before its first request (a client that connected and went, or one the head deadline
/// closed), which is routine, not an error — under a slowloris attack it would be a thousand
/// error lines every deadline. It is logged at debug level instead.
struct ClosedBeforeRequestLogFilter: LogHandler {
    var base: any LogHandler

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if event.level == .error, event.message.description == "Error handling upgrade result",
           case .string(let error)? = event.metadata?["error.type"],
           error == String(describing: ChannelError.inappropriateOperationForState) {
            guard base.logLevel <= .debug else { return }
            event.level = .debug
        }
        base.log(event: event)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with the WebSocket upgrade to `webSocketRouter`'s routes, closing connections that
    /// are late with their requests (``RequestTimeouts``).
    static func http1WebSocketUpgrade<WebSocketRouter: HTTPResponderBuilder & _HB_SendableMetatype>(
        webSocketRouter: WebSocketRouter, timeouts: RequestTimeouts
    ) -> HTTPServerBuilder where WebSocketRouter.Responder.Context: WebSocketRequestContext {
        let webSocketResponder = webSocketRouter.buildResponder()
        return HTTPServerBuilder { responder in
            DeadlineHTTPChannel(
                base: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: .init()),
                timeouts: timeouts)
        }
    }
}
