import Glibc

/// The terminal settings of `segue`'s interactive views, the prompt's and watch's: keys one at a
/// time and unechoed, no flow control (Ctrl-S would freeze the view), Ctrl-V and CR read as typed.
enum TerminalSettings {
    /// `saved` made raw. With `signals`, Ctrl-C and Ctrl-Z stay signals (watch's handlers put the
    /// terminal back); without, they are keys (the prompt's). `waitForKey`: a read blocks until a
    /// key comes, else it returns at once with what there is.
    static func raw(from saved: termios, signals: Bool, waitForKey: Bool) -> termios {
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | IEXTEN)
        if !signals { raw.c_lflag &= ~tcflag_t(ISIG) }
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = waitForKey ? 1 : 0
            cc[Int(VTIME)] = 0
        }
        return raw
    }
}
