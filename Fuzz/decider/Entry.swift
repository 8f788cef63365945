/// libFuzzer entry for decide/evolve: the bytes are a command script (see `DeciderFuzzCheck`), and
/// any broken invariant is a crash the fuzzer keeps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecider(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    if let problem = DeciderFuzzCheck.run(bytes) { fatalError("decider invariant broken: \(problem)") }
    return 0
}
