/// libFuzzer entry for the request codec: `RequestDecoder.decode` on arbitrary bytes must return
/// (see `CodecFuzzCheck`), and any broken property is a crash the fuzzer keeps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCodec(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    if let problem = CodecFuzzCheck.run(bytes) { fatalError("codec property broken: \(problem)") }
    return 0
}
