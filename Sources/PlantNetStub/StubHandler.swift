import Foundation
import NIOCore
import NIOHTTP1

/// Reads one HTTP request at a time on a stub connection and writes the stub's answer, after its latency.
final class StubHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let stub: PlantNetStub
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(stub: PlantNetStub) {
        self.stub = stub
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let received):
            head = received
            body.clear()
            if received.headers["expect"].contains(where: { $0.lowercased() == "100-continue" }) {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: received.version, status: .continue))),
                                      promise: nil)
            }
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let request = head else { return }
            head = nil
            let (reply, latency) = stub.respond(to: request, body: Data(body.readableBytesView))
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            if latency > .zero {
                let nanoseconds = latency.components.seconds * 1_000_000_000 + latency.components.attoseconds / 1_000_000_000
                context.eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) {
                    let (handler, context) = bound.value
                    handler.write(reply, version: request.version, context: context)
                }
            } else {
                write(reply, version: request.version, context: context)
            }
        }
    }

    private func write(_ reply: PlantNetStub.Reply, version: HTTPVersion, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: reply.contentType)
        headers.add(name: "Content-Length", value: String(reply.body.count))
        for (name, value) in reply.headers { headers.add(name: name, value: value) }
        let head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: reply.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: reply.body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
