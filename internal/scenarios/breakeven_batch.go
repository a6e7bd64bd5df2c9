package scenarios

import (
	"crypto/sha256"
	"math/rand/v2"
	"runtime"
	"time"
)

// breakevenSeed seeds the ChaCha8 stream the payloads are drawn from, so
// every run (and every mode) hashes the same bytes for a given size.
var breakevenSeed = [32]byte{'o', 'f', 'f', 't', 'o', 'p', ' ', 's', 'e', 'e', 'd', ' ', '0', '0', '2'}

// breakevenPayloads draws BreakevenTasks payloads of size bytes from the
// fixed ChaCha8 stream; nil when stop closes first.
func breakevenPayloads(size int, stop <-chan struct{}) [][]byte {
	rng := rand.NewChaCha8(breakevenSeed)
	ps := make([][]byte, BreakevenTasks)
	for i := range ps {
		select {
		case <-stop:
			return nil
		default:
		}
		ps[i] = make([]byte, size)
		rng.Read(ps[i])
	}
	return ps
}

// chainHash is one task's work: SHA-256 over payload, rounds times, each
// round over the previous round's digest followed by the whole payload:
//
//	d1 = SHA-256(payload), dk = SHA-256(d(k-1) || payload)
//
// so CPU grows rounds-fold at the same payload size, as the seed's repeated
// hash does, and the result depends on every round: none can be skipped
// or hoisted out of the loop. It returns ok false, early, when abandon
// reports true before a round.
func chainHash(payload []byte, rounds int, abandon func() bool) (d [sha256.Size]byte, ok bool) {
	h := sha256.New()
	for k := range rounds {
		if abandon() {
			return d, false
		}
		if k > 0 {
			h.Reset()
			h.Write(d[:])
		}
		h.Write(payload)
		h.Sum(d[:0])
	}
	return d, true
}

// beTask is one task's outcome; written by the goroutine that ran it and
// read by the driver after the batch (ordered by the Loop's queue and the
// batch's done channel).
type beTask struct {
	digest [sha256.Size]byte
	cpu    time.Duration
	cpuOK  bool
	ok     bool // hashed to the end (not stopped)
	err    bool // refused or dropped by the pool
}

// hash runs chainHash, measuring its thread CPU time; it gives up when the
// scenario stops or gen moves past the batch's.
func (b *breakeven) hash(t *beTask, payload []byte, rounds int, gen int64) {
	abandon := func() bool { return b.gen.Load() != gen || b.stopped() }
	t.cpu, t.cpuOK = onCPU(func() { t.digest, t.ok = chainHash(payload, rounds, abandon) })
}

// batch runs the 32 tasks in mode and returns the mode's figures and the
// digests; errs counts tasks the pool refused or dropped; ok is false when
// the batch was abandoned (Stop, or gen moved on) before every task hashed
// to the end.
//
// The wall time runs from just before the driver hands the batch to the
// Loop until the Loop has the last result: for inline, the end of the one
// Loop callback that hashes all 32 payloads back to back (the seed's main
// thread running its loop); for the pool modes, the Loop callback that
// copies (pool-copy) and submits all 32, then the Loop callbacks that
// receive each result (Node's message from the worker).
func (b *breakeven) batch(mode beMode, payloads [][]byte, rounds int, gen int64) (f beRun, digests [][32]byte, errs int, ok bool) {
	tasks := make([]beTask, len(payloads))
	f.workers = b.env.Workers()
	f.par = 1
	if mode != modeInline && f.workers > 0 {
		f.par = min(f.workers, runtime.GOMAXPROCS(0), len(payloads))
	}
	var end time.Time
	start := time.Now()
	if mode == modeInline {
		b.env.Do(func() {
			for i, p := range payloads {
				if b.hash(&tasks[i], p, rounds, gen); !tasks[i].ok {
					break
				}
			}
			end = time.Now()
		})
	} else {
		// left, end and f.copy are touched only on the Loop until done
		// closes.
		left := len(payloads)
		done := make(chan struct{})
		arrived := func() {
			if left--; left == 0 {
				end = time.Now()
				close(done)
			}
		}
		b.env.Do(func() {
			for i, p := range payloads {
				if mode == modeCopy {
					t := time.Now()
					q := make([]byte, len(p))
					copy(q, p)
					p = q
					f.copy += time.Since(t)
				}
				t := &tasks[i]
				err := b.env.Submit(func() { b.hash(t, p, rounds, gen) },
					func(err error) {
						t.err = err != nil
						b.env.Post(arrived)
					})
				if err != nil {
					t.err = true
					arrived()
				}
			}
		})
		<-done
	}
	f.wall = end.Sub(start)
	digests = make([][32]byte, len(tasks))
	var cpu time.Duration
	f.cpuOK = true
	ok = true
	for i, t := range tasks {
		switch {
		case t.err:
			errs++
		case !t.ok:
			ok = false
		}
		digests[i] = t.digest
		cpu += t.cpu
		f.cpuOK = f.cpuOK && t.cpuOK
	}
	if f.cpuOK {
		f.cpu = cpu / time.Duration(len(tasks))
	}
	return f, digests, errs, ok && b.gen.Load() == gen && !b.stopped()
}

// breakevenEstimate fits the seed's model to a pool mode's figures (median
// wall and CPU per task of its latest batches). The model: n
// tasks of c CPU each take n*c on the Loop inline, and (c + o) * n / P on a
// warm pool of parallelism P, o being the dispatch overhead per task
// (the seed's "(12 ms x 32) / ((12 + overhead) x 32/4 + 60 ms pool start)",
// without the 60 ms: offtop's pool is started once, not per batch).
//
// overhead o is solved from the measured batch: o = wall * P / n - c, the
// worker time the batch had beyond the hashing, per task, clamped at 0. It
// counts everything that is not hashing: submit and hand-off, the copy in
// pool-copy (on the Loop, so it delays dispatch), the result's trip back to
// the Loop, and workers idle at the end of an uneven batch.
//
// breakEven is the CPU per task at which the pool's wall equals the inline
// wall with o held fixed: c * n = (c + o) * n / P, so c = o / (P - 1). It
// exists only for P > 1 (beOK): one worker, or one core, never beats the
// Loop under this model.
func breakevenEstimate(wall, cpu time.Duration, par, n int) (overhead, breakEven time.Duration, beOK bool) {
	overhead = max(wall*time.Duration(par)/time.Duration(n)-cpu, 0)
	if par < 2 {
		return overhead, 0, false
	}
	return overhead, overhead / time.Duration(par-1), true
}
