// SegueDaemon
