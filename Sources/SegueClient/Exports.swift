// The types SegueClient's API speaks in (replies, snapshots, publications) live in SegueProtocol,
// which is not a product of its own: an app that imports SegueClient can name them too.
@_exported import SegueProtocol
