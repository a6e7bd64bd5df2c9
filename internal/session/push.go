package session

// PushNewest hands s to ch without waiting: when ch is full (its reader
// far behind) the oldest waiting Snapshot is dropped to make room, so the
// reader always gets the newest and the sender never blocks, whoever else
// sends on ch.
func PushNewest(ch chan Snapshot, s Snapshot) {
	for {
		select {
		case ch <- s:
			return
		default:
		}
		select {
		case <-ch:
		default:
		}
	}
}
