// SegueClient
