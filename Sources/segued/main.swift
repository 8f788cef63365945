import Foundation
import SegueDaemon

// Temporary entry point until the configuration layer lands: flags only.
var options = EngineOptions(dataDirectory: "./.segue", commandEndpoints: [], publishEndpoints: [])
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--data-dir": options.dataDirectory = args.popFirst()!
    case "--command": options.commandEndpoints.append(args.popFirst()!)
    case "--publish": options.publishEndpoints.append(args.popFirst()!)
    case "--frame-rate": options.frameRate = Int(args.popFirst()!)!
    default: break
    }
}
if options.commandEndpoints.isEmpty { options.commandEndpoints = ["tcp://127.0.0.1:7400"] }
if options.publishEndpoints.isEmpty { options.publishEndpoints = ["tcp://127.0.0.1:7401"] }
let engine = try Engine(options: options) { p, m in FileHandle.standardError.write("<\(p)>\(m)\n".data(using: .utf8)!) }
signal(SIGTERM, SIG_IGN)
signal(SIGINT, SIG_IGN)
let sources = [SIGTERM, SIGINT].map { sig in
    let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
    s.setEventHandler { engine.stop() }
    s.resume()
    return s
}
try engine.run { FileHandle.standardError.write("ready\n".data(using: .utf8)!) }
_ = sources
