package pool

// Stats returns a copy of the pool's counts, workers (by slot) and latency.
// The counts are read under one lock, so Submitted = Completed + Failed +
// TimedOut + Canceled + Running + Queued holds exactly. Busy and OnCPU include the task in
// progress up to At. Stats reads the thread CPU clock of each worker in a
// run (one syscall each on Linux) and merges the latency windows, so call it
// a few times a second, not per task.
func (p *Pool) Stats() Stats {
	var ws [MaxSize]*worker
	p.mu.Lock()
	s := Stats{Size: p.size, Counts: p.countsLocked()}
	n := 0
	for _, w := range p.slots {
		if w != nil {
			ws[n] = w
			n++
		}
	}
	s.Workers = make([]Worker, n)
	var lat []latTimes // the workers' latencies not yet recorded
	for i, w := range ws[:n] {
		s.Workers[i] = Worker{Slot: w.slot, Started: w.started, gen: w.gen,
			Running: w.assigned, Retiring: w.retiring, Stuck: w.stuck,
			Completed: w.completed, Failed: w.failed, TimedOut: w.timedOut}
		lat = w.lat.takeLocked(lat)
	}
	p.mu.Unlock()
	p.recordTimes(lat)

	at := p.clock()
	s.At = p.at(at)
	for i, w := range ws[:n] {
		w.read(at, &s.Workers[i])
	}
	s.Wait, s.Run, s.Total = p.wait.Window(), p.run.Window(), p.total.Window()
	s.WaitAll, s.RunAll, s.TotalAll = p.wait.Total(), p.run.Total(), p.total.Total()
	return s
}

// Counts returns the pool's counts, read under one lock, so the invariant
// on Counts holds exactly. It is cheap (no clock read, no histogram merge):
// call it as often as needed.
func (p *Pool) Counts() Counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.countsLocked()
}

// countsLocked copies the counts. Callers hold mu.
func (p *Pool) countsLocked() Counts {
	return Counts{
		Submitted: p.submitted,
		Completed: p.completed,
		Failed:    p.failed,
		TimedOut:  p.timedOut,
		Canceled:  p.canceled,
		Running:   p.running,
		Queued:    p.queued,
		Rejected:  p.rejected,
		Replaced:  p.replaced,
		Abandoned: p.abandoned,
		Stuck:     p.stuck,
	}
}
