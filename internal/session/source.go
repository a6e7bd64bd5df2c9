package session

// Source is what every front end reads and drives: the in-process Session,
// or the attach client reading an agent in another program
// (internal/remote). Data flows one way: Samples and Snapshot carry
// Snapshots out; Post carries Actions in.
//
// All methods are safe for concurrent use. Samples returns the same
// channel every time; it gets every sample in order and is closed once
// Close has finished. Snapshot returns the newest sample (with the
// control state laid over it, so an Action shows at once). Post returns at
// once; Actions apply in the order posted and the channel gets each one's
// result (nil, or an error wrapping ErrAction). Close stops the Source;
// it is safe to call twice.
type Source interface {
	Samples() <-chan Snapshot
	Snapshot() Snapshot
	Post(Action) <-chan error
	Close()
}

// Apply posts a to src and waits until it has been applied.
func Apply(src Source, a Action) error { return <-src.Post(a) }

var _ Source = (*Session)(nil)
