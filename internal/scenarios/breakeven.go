package scenarios

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/offtop/offtop/internal/workload"
)

// The grid of seed 002 (docs/seeds.md): a batch is 32 tasks; each task is
// SHA-256 over a payload of one of four sizes, repeated 1, 8 or 64 rounds
// (the knob for CPU per task that leaves the payload size alone). At start
// the scenario sits in the middle of the grid, 512 KB x 8 rounds, where the
// seed found the break-even (1.77 ms of CPU a task in V8, speed-up 0.89).
const (
	// BreakevenTasks is the number of tasks in a batch, the seed's 32.
	BreakevenTasks = 32
	// Payload sizes after Scale are kept within these bounds (bytes): at
	// least 1 KB, so a task still hashes something, and at most 16 MB, so 32
	// payloads and their copies stay within 1 GB.
	breakevenMinPayload = 1 << 10
	breakevenMaxPayload = 16 << 20
	breakevenStartSize  = 1 // index into breakevenSizes: 512 KB
	breakevenStartRound = 1 // index into breakevenRounds: 8
)

// breakevenSizes (bytes) and breakevenRounds are the seed's payload sizes
// and repetition counts.
var (
	breakevenSizes  = [...]int{64 << 10, 512 << 10, 2 << 20, 8 << 20}
	breakevenRounds = [...]int{1, 8, 64}
)

// beMode is how a batch runs its 32 tasks.
type beMode int

const (
	// modeInline runs every task on the Loop, one after another.
	modeInline beMode = iota
	// modeCopy copies each payload on the Loop (Node's structured clone on
	// the main thread), then submits the task with the copy to the pool.
	modeCopy
	// modeMove submits each task with the payload slice itself: ownership
	// passes to the task (Node's transfer list), no byte is copied.
	modeMove
	beModes
)

// beKey is the key prefix and beLabel the screen name of each mode.
var (
	beKey   = [beModes]string{"inline", "copy", "move"}
	beLabel = [beModes]string{"inline", "pool-copy", "pool-move"}
)

// beConfig is the (payload size, rounds) a batch runs at.
type beConfig struct{ size, rounds int }

// beRun is one batch's figures.
type beRun struct {
	wall time.Duration // first dispatch to last result, on the Loop
	// cpu is the mean thread CPU time of the hashing in one task; cpuOK
	// false when the OS gives no thread CPU clock.
	cpu   time.Duration
	cpuOK bool
	// copy is the wall time the Loop spent making and filling the copies
	// (pool-copy), waits for a core while workers hash included: what the
	// copy costs the Loop.
	copy time.Duration
	// workers is the pool size at the batch's start and par the parallelism
	// the estimate assumes: min(workers, GOMAXPROCS, tasks), 1 at workers 0
	// (the pool then runs its tasks on the Loop) and for inline.
	workers, par int
}

// breakevenHistory is how many of a mode's latest batches its figures are
// the median of: one batch of small tasks is a few ms, within reach of a GC
// cycle or a probe tick.
const breakevenHistory = 5

// beFigures are one mode's figures: medians over its latest batches at the
// same payload, rounds and workers.
type beFigures struct {
	have            bool
	wall, cpu, copy time.Duration
	cpuOK           bool
	workers, par    int
}

// median is the middle value of ds (the upper one of an even count); ds is
// sorted in place.
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// summarize returns the medians of runs, which share workers and par.
func summarize(runs []beRun) beFigures {
	if len(runs) == 0 {
		return beFigures{}
	}
	var wall, cpu, cp []time.Duration
	f := beFigures{have: true, cpuOK: true, workers: runs[0].workers, par: runs[0].par}
	for _, r := range runs {
		wall, cpu, cp = append(wall, r.wall), append(cpu, r.cpu), append(cp, r.copy)
		f.cpuOK = f.cpuOK && r.cpuOK
	}
	f.wall, f.cpu, f.copy = median(wall), median(cpu), median(cp)
	return f
}

// breakeven runs the seed's experiment in a cycle: a batch inline, a batch
// on the pool with copied payloads, a batch on the pool with moved
// payloads, then inline again, all on the same payloads, back to back.
//
// One driver goroutine runs the batches; the Loop runs the inline tasks and
// the dispatch of pool tasks, and collects their results, as Node's main
// thread does in the seed's benchmark.
type breakeven struct {
	base
	sizeIdx, roundsIdx atomic.Int32 // requested grid position; read at each batch
	// objects selects the object graph of seed 000 s5 (docs/seeds.md)
	// instead of byte buffers.
	objects atomic.Bool
	// gen counts changes of size, rounds and pause. A batch carries the gen
	// it started at and is abandoned (its tasks return between two rounds
	// of hashing, its figures dropped) when gen moves on: a key takes
	// effect at once, not after an 18 s batch.
	gen atomic.Int64

	env Env

	// mu guards the figures below.
	mu      sync.Mutex
	cfg     beConfig         // the config the runs are at (zero before the first batch)
	runs    [beModes][]beRun // latest first-to-last, at most breakevenHistory
	batches int64            // batches finished since Reset
	// checked counts pool batches whose digests were compared with the
	// inline batch's, per mode; mismatches counts digests that differed;
	// taskErrs counts tasks the pool refused or lost (a bounded queue).
	checked    [beModes]int64
	mismatches int64
	taskErrs   int64
	// objRuns are the latest rounds of the objects experiment, at most
	// breakevenHistory.
	objRuns []objRun
}

func newBreakeven(c Config) *breakeven {
	b := &breakeven{}
	b.sizeIdx.Store(breakevenStartSize)
	b.roundsIdx.Store(breakevenStartRound)
	b.objects.Store(c.BreakevenPayload == PayloadObjects)
	return b
}

// breakevenKnobs: s and S step the payload size, o the kind (workload.BreakevenKnobs).
var breakevenKnobs = workload.BreakevenKnobs

func (b *breakeven) Name() string { return "breakeven" }

func (b *breakeven) Look() string {
	if b.objects.Load() {
		return "objects: serialising them blocks the Loop far longer than summing them in place"
	}
	return "tiny tasks lose to dispatch; a copied payload costs more than a moved one"
}

func (b *breakeven) Start(env Env) error {
	b.env = env
	b.begin()
	b.goSafe(b.drive)
	return nil
}

// Stop ends the batch in progress (tasks return between two rounds of
// hashing) and waits for the driver. Safe twice.
func (b *breakeven) Stop() { b.halt(nil) }

// breakevenSize is the payload size in bytes at grid index i and the given
// scale: the seed's size times scale, within 1 KB..16 MB. Scale shrinks the
// hashing and the copy alike, so their ratio (what the scenario shows) is
// kept; at scale 1 the sizes are the seed's.
func breakevenSize(i int, scale float64) int {
	s := int(float64(breakevenSizes[i])*scale + 0.5)
	return min(max(s, breakevenMinPayload), breakevenMaxPayload)
}

// requested is the config the next batch runs at.
func (b *breakeven) requested() beConfig {
	return beConfig{
		size:   breakevenSize(int(b.sizeIdx.Load()), b.env.Scale),
		rounds: breakevenRounds[b.roundsIdx.Load()],
	}
}

// drive runs batches until stopped: inline, pool-copy, pool-move, and
// round again. A change of payload size or rounds abandons the batch in
// progress and starts the cycle over at inline, whose digests are the
// answer the pool batches are checked against.
func (b *breakeven) drive() {
	var (
		payloads [][]byte
		cur      beConfig
		ref      [][32]byte // digests of the latest inline batch at cur
		next     = modeInline
	)
	for b.waitRunning() {
		gen := b.gen.Load()
		if b.objects.Load() {
			payloads, cur = nil, beConfig{} // the bytes cycle starts afresh after
			b.objectsDrive(gen)
			continue
		}
		c := b.requested()
		if len(payloads) == 0 || len(payloads[0]) != c.size {
			payloads = nil // let the old set go before making the new one
			if payloads = breakevenPayloads(c.size, b.done()); payloads == nil {
				return
			}
		}
		if c != cur {
			cur, ref, next = c, nil, modeInline
			b.mu.Lock()
			b.cfg, b.runs = c, [beModes][]beRun{}
			b.mu.Unlock()
		}
		f, digests, errs, ok := b.batch(next, payloads, c.rounds, gen)
		if !ok {
			continue // abandoned: a new config, a pause, or Stop
		}
		b.mu.Lock()
		b.batches++
		b.taskErrs += int64(errs)
		if errs == 0 {
			if next == modeMove {
				b.env.ObserveHeadline(f.wall)
			}
			b.record(next, f)
			if next == modeInline {
				ref = digests
			} else if ref != nil {
				b.checked[next]++
				for i := range digests {
					if digests[i] != ref[i] {
						b.mismatches++
					}
				}
			}
		}
		b.mu.Unlock()
		next = (next + 1) % beModes
	}
}

// record adds a batch to its mode's runs, dropping the oldest beyond
// breakevenHistory, and all of them if the pool size changed. Callers hold
// mu.
func (b *breakeven) record(m beMode, r beRun) {
	rs := b.runs[m]
	if len(rs) > 0 && rs[0].workers != r.workers && m != modeInline {
		rs = rs[:0]
	}
	if len(rs) == breakevenHistory {
		rs = append(rs[:0], rs[1:]...)
	}
	b.runs[m] = append(rs, r)
}

// fmtBytes formats a payload size as the seed writes it: 64KB, 8MB.
func fmtBytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%dKB", (n+512)>>10)
	}
}

func (b *breakeven) Status() Status {
	req := b.requested()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.objects.Load() {
		return Status{Load: b.objectsStatusLoad(), Readouts: b.objectReadouts()}
	}
	var figs [beModes]beFigures
	for m := range beModes {
		figs[m] = summarize(b.runs[m])
	}
	in := figs[modeInline]
	var rs []Readout
	// speed-up first: it is the answer to "should this go to a pool?"
	for _, m := range []beMode{modeMove, modeCopy} {
		k, l, f := beKey[m], beLabel[m], figs[m]
		if f.have && in.have && f.wall > 0 {
			rs = append(rs, Num(k+"_speedup", l+" speed-up", float64(in.wall)/float64(f.wall)))
		} else {
			rs = append(rs, NA(k+"_speedup", l+" speed-up"))
		}
	}
	for m := range beModes {
		f := figs[m]
		rs = append(rs, Millis(beKey[m]+"_wall_ms", beLabel[m]+" wall", f.wall, f.have))
	}
	for _, m := range []beMode{modeMove, modeCopy} {
		k, l, f := beKey[m], beLabel[m], figs[m]
		if !f.have || !f.cpuOK {
			rs = append(rs, NA(k+"_overhead_per_task_ms", l+" overhead/task").In(UnitMS),
				NA(k+"_break_even_cpu_ms", l+" break-even CPU/task").In(UnitMS))
			continue
		}
		o, be, ok := breakevenEstimate(f.wall, f.cpu, f.par, BreakevenTasks)
		rs = append(rs, Millis(k+"_overhead_per_task_ms", l+" overhead/task", o, true))
		if ok {
			rs = append(rs, Millis(k+"_break_even_cpu_ms", l+" break-even CPU/task", be, true))
		} else {
			rs = append(rs, Readout{Key: k + "_break_even_cpu_ms", Label: l + " break-even CPU/task", Unit: UnitMS,
				Text: fmt.Sprintf("never: parallelism %d", f.par)})
		}
	}
	for m := range beModes {
		f := figs[m]
		rs = append(rs, Millis(beKey[m]+"_cpu_per_task_ms", beLabel[m]+" CPU/task", f.cpu, f.have && f.cpuOK))
	}
	cp := figs[modeCopy]
	rs = append(rs, Millis("copy_loop_ms", "copying on the Loop", cp.copy, cp.have))
	if b.cfg.size > 0 {
		rs = append(rs,
			Readout{Key: "payload_kb", Label: "payload", Value: float64(b.cfg.size) / 1024, Known: true, Unit: UnitKiB, Text: fmtBytes(b.cfg.size)},
			Num("hash_rounds", "rounds", float64(b.cfg.rounds)))
	} else {
		rs = append(rs, NA("payload_kb", "payload").In(UnitKiB), NA("hash_rounds", "rounds"))
	}
	pw := max(figs[modeCopy].workers, figs[modeMove].workers)
	rs = append(rs,
		Num("batch_workers", "pool batch at workers", float64(pw)),
		Num("batches", "batches", float64(b.batches)),
		Num("task_errors", "task errors", float64(b.taskErrs)),
	)
	rs = append(rs, answer(b.checked[modeCopy] > 0 && b.checked[modeMove] > 0, b.mismatches == 0))
	return Status{
		Load:     fmt.Sprintf("payload %s x %d rounds, %d tasks a batch", fmtBytes(req.size), req.rounds, BreakevenTasks),
		Readouts: rs,
	}
}

// SetLoad steps the rounds of hashing per task through 1, 8, 64; the batch
// in progress is abandoned.
func (b *breakeven) SetLoad(delta int) {
	i := int(b.roundsIdx.Load()) + clampSteps(delta, len(breakevenRounds))
	b.roundsIdx.Store(int32(min(max(i, 0), len(breakevenRounds)-1)))
	b.gen.Add(1)
}

// stepPayload steps the payload size through 64KB, 512KB, 2MB, 8MB (times
// Scale); the batch in progress is abandoned.
func (b *breakeven) stepPayload(delta int) {
	i := int(b.sizeIdx.Load()) + delta
	b.sizeIdx.Store(int32(min(max(i, 0), len(breakevenSizes)-1)))
	b.gen.Add(1)
}

// Pause stops (true) or resumes (false) the batches; pausing abandons the
// batch in progress.
func (b *breakeven) Pause(p bool) {
	b.base.Pause(p)
	b.gen.Add(1)
}

// Reset clears the figures and the answer counts; the digests the next pool
// batches are checked against are kept.
func (b *breakeven) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.runs = [beModes][]beRun{}
	b.batches, b.mismatches, b.taskErrs = 0, 0, 0
	b.checked = [beModes]int64{}
	b.objRuns = nil
}
