import SegueCore
import SegueProtocol

/// The request codec fuzz target's oracle: `RequestDecoder.decode` on arbitrary bytes returns
/// (it never traps), its error reply is valid JSON carrying the id, and JSON that parses survives
/// a serialize/parse round trip and decodes to the same request.
///
/// Compiled twice: into the libFuzzer target (`Fuzz/build.sh`, with the SegueCore and codec
/// sources) and into SegueWireTests, which replays the checked-in corpus (`FuzzCorpusCodecTests`).
/// It reports a broken property as a sentence instead of trapping.
enum CodecFuzzCheck {
    /// Small limits too, so the fuzzer reaches the limit checks with short inputs.
    static let decoders: [RequestDecoder] = {
        var small = RequestDecoder.Limits()
        small.maxParamsBytes = 64
        small.maxIDBytes = 8
        small.maxDepth = 4
        small.maxStringBytes = 32
        small.maxHistoryLimit = 10
        return [RequestDecoder(), RequestDecoder(limits: small)]
    }()

    /// The first broken property, or `nil`.
    static func run(_ bytes: [UInt8]) -> String? {
        for decoder in decoders {
            let result = decoder.decode(bytes)
            switch result {
            case .success(let request):
                if request.isMutating != !Request.readCommands.contains(request.command) {
                    return "\(request.command) is mutating: \(request.isMutating)"
                }
                if request.isMutating, request.navigator == nil {
                    return "\(request.command) decoded without a navigator"
                }
            case .failure(let failure):
                let reply = Reply.error(id: failure.id, failure.error)
                guard let parsed = try? JSON.parse(reply.serializedBytes()) else {
                    return "the error reply is not JSON"
                }
                if parsed != reply { return "the error reply changes through JSON" }
                if parsed["id"] != (failure.id.map(JSON.string) ?? .null) { return "the error reply lost the id" }
                if failure.error.message.isEmpty { return "an error without a message" }
            }
            // What parses, re-serialized, parses to the same value and decodes the same way.
            let limits = JSONLimits(maxDepth: decoder.limits.maxDepth, maxStringBytes: decoder.limits.maxStringBytes)
            guard let json = try? JSON.parse(bytes, limits: limits) else { continue }
            let once = json.serializedBytes()
            guard let again = try? JSON.parse(once, limits: limits) else {
                return "serialized JSON does not parse: \(once.count) bytes"
            }
            if again != json { return "JSON changes through serialize and parse" }
            if again.serializedBytes() != once { return "serialization is not stable" }
            if decoder.decode(once) != result { return "the re-serialized request decodes differently" }
        }
        return nil
    }
}
