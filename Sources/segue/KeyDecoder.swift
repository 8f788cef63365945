/// Turns the bytes a terminal sends into keys, one byte at a time (a key may span several reads).
///
/// Escape sequences are read whole, as ECMA-48 frames them: CSI is `ESC [`, parameter bytes
/// 0x30–0x3F, intermediate bytes 0x20–0x2F, a final byte 0x40–0x7E; SS3 is `ESC O` and one byte. Those
/// no one has a use for (F1, F5, Insert…) are dropped whole rather than typed as their tails.
struct KeyDecoder {
    private enum State: Equatable {
        case ground
        case escape
        case csi([UInt8])
        case ss3
        /// The bytes of one UTF-8 character so far, and how many it has.
        case utf8([UInt8], Int)
        /// Inside a bracketed paste (`ESC [200~` … `ESC [201~`), its bytes so far.
        case paste([UInt8])
    }

    private var state = State.ground
    private static let pasteEnd = Array("\u{1B}[201~".utf8)
    /// A CSI sequence with more parameter bytes than this is no key: what it held is dropped and the
    /// bytes after it are read as typed, so that a stray ESC cannot swallow the line.
    private static let csiLimit = 16
    /// A paste longer than this ends there, as if its end had come: a terminal that never sends the
    /// end would otherwise hold every key after it (Ctrl-D and Ctrl-C included).
    private static let pasteLimit = 1 << 20

    /// Whether an ESC came last: the Escape key, if nothing follows soon (the reader waits briefly).
    var awaitsEscape: Bool { state == .escape }

    /// Nothing followed an ESC in time: it was the Escape key.
    mutating func escapeTimedOut() -> TerminalKey? {
        guard state == .escape else { return nil }
        state = .ground
        return .escape
    }

    mutating func feed(_ byte: UInt8) -> TerminalKey? {
        switch state {
        case .ground: return ground(byte)
        case .escape:
            state = .ground
            switch byte {
            case UInt8(ascii: "["): state = .csi([])
            case UInt8(ascii: "O"): state = .ss3
            case UInt8(ascii: "b"): return .wordLeft
            case UInt8(ascii: "f"): return .wordRight
            case 0x7F, 0x08: return .killWordBefore
            case 0x1B:
                // Escape pressed twice: the first is the key, the second may begin a sequence.
                state = .escape
                return .escape
            // A control key right after a lone ESC (Esc, then Enter or Ctrl-C) is still that key.
            case 0x00...0x1F: return ground(byte)
            default: break
            }
            return nil
        case .csi(var bytes):
            switch byte {
            case 0x20...0x3F where bytes.count < Self.csiLimit:
                bytes.append(byte)
                state = .csi(bytes)
                return nil
            case 0x40...0x7E:
                state = .ground
                return csi(bytes, final: byte)
            default:
                // Not a CSI sequence after all: dropped, and the byte read afresh.
                state = .ground
                return ground(byte)
            }
        case .ss3:
            state = .ground
            return Self.cursorKey(byte)
        case .utf8(var bytes, let length):
            guard byte & 0xC0 == 0x80 else {
                state = .ground
                return ground(byte)
            }
            bytes.append(byte)
            guard bytes.count == length else {
                state = .utf8(bytes, length)
                return nil
            }
            state = .ground
            return String(validating: bytes, as: UTF8.self).map(TerminalKey.text)
        case .paste(var bytes):
            // The state let go first, so that the append extends `bytes` in place instead of copying
            // the paste so far at every byte (a 1 MB paste took seconds).
            state = .ground
            bytes.append(byte)
            if bytes.count > Self.pasteLimit {
                state = .ground
                return Self.pasted(bytes)
            }
            guard bytes.count >= Self.pasteEnd.count, bytes.suffix(Self.pasteEnd.count).elementsEqual(Self.pasteEnd)
            else {
                state = .paste(bytes)
                return nil
            }
            state = .ground
            return Self.pasted(Array(bytes.dropLast(Self.pasteEnd.count)))
        }
    }

    private mutating func ground(_ byte: UInt8) -> TerminalKey? {
        switch byte {
        case 0x1B:
            state = .escape
            return nil
        case 0x20...0x7E: return .text(String(UnicodeScalar(byte)))
        case 0xC2...0xDF: state = .utf8([byte], 2)
        case 0xE0...0xEF: state = .utf8([byte], 3)
        case 0xF0...0xF4: state = .utf8([byte], 4)
        default: return Self.control(byte)
        }
        return nil
    }

    /// Readline's emacs keys.
    private static func control(_ byte: UInt8) -> TerminalKey? {
        switch byte {
        case 0x01: .home
        case 0x02: .left
        case 0x03: .interrupt
        case 0x04: .endOfInput
        case 0x05: .end
        case 0x06: .right
        case 0x08, 0x7F: .backspace
        case 0x09: .tab
        case 0x0A, 0x0D: .enter
        case 0x0B: .killToEnd
        case 0x0C: .clearScreen
        case 0x0E: .down
        case 0x10: .up
        case 0x15: .killLine
        case 0x17: .killWordBefore
        case 0x1A: .suspend
        default: nil
        }
    }

    private static func cursorKey(_ final: UInt8) -> TerminalKey? {
        switch final {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        default: nil
        }
    }

    private mutating func csi(_ parameters: [UInt8], final: UInt8) -> TerminalKey? {
        let numbers = String(decoding: parameters, as: UTF8.self).split(separator: ";").map { Int($0) }
        if final == UInt8(ascii: "~") {
            switch numbers.first ?? nil {
            case 1, 7: return .home
            case 4, 8: return .end
            case 3: return .delete
            case 5: return .pageUp
            case 6: return .pageDown
            case 200:
                state = .paste([])
                return nil
            default: return nil
            }
        }
        let key = Self.cursorKey(final)
        // Ctrl (5) or Alt (3) with ← →, as xterm sends them: `ESC [1;5D`.
        if numbers.count == 2, let modifier = numbers[1], modifier == 3 || modifier == 5 {
            if key == .left { return .wordLeft }
            if key == .right { return .wordRight }
        }
        return key
    }

    /// A paste goes in as typed, its line breaks as spaces and other control bytes dropped: a JSON
    /// request pasted over several lines is one line to edit, and a paste never sends a request.
    private static func pasted(_ bytes: [UInt8]) -> TerminalKey? {
        var text = ""
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            if scalar == "\r" || scalar == "\n" || scalar == "\t" {
                if text.last != " " { text.append(" ") }
            } else if scalar.value >= 0x20, scalar.value != 0x7F {
                text.unicodeScalars.append(scalar)
            }
        }
        return text.isEmpty ? nil : .text(text)
    }
}
