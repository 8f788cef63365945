// SegueWire
