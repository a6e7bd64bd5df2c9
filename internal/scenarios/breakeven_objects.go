package scenarios

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Payload kinds of breakeven. Seed 000 s5 (docs/seeds.md) sends 1,000,000 objects
// {id, sku, price} to a worker and back: ~350 ms, the main thread blocked
// ~115 ms serialising, against ~8 ms to sum the prices in place. offtop's
// structured clone is encoding/gob from the standard library: the Loop
// encodes the slice (blocked), a pool task decodes it, sums the prices and
// encodes the objects back, and the Loop decodes the reply.
const (
	// PayloadBytes: byte buffers, hashed, as in seed 002 (the default).
	PayloadBytes = "bytes"
	// PayloadObjects: the object graph above, serialised.
	PayloadObjects = "objects"
)

// ParsePayload checks a payload kind; "" is PayloadBytes.
func ParsePayload(s string) (string, error) {
	switch s {
	case "", PayloadBytes:
		return PayloadBytes, nil
	case PayloadObjects:
		return s, nil
	}
	return "", fmt.Errorf("unknown payload %q (have: bytes, objects)", s)
}

// BreakevenObjects is the number of objects at scale 1, the seed's
// million; Scale multiplies it, within breakevenMinObjects and
// breakevenMaxObjects. The cap, four times the seed's, bounds memory: a
// round holds the objects, their gob encoding and the decoded copy at
// once, ~360 MiB of RSS a million (docs/experiments.md), ~1.4 GiB at the
// cap.
const (
	BreakevenObjects    = 1_000_000
	breakevenMinObjects = 1000
	breakevenMaxObjects = 4_000_000
)

// item is one object of the graph: the seed's {id, sku, price}.
type item struct {
	ID    int64
	SKU   string
	Price float64
}

// makeItems builds n objects, each a separate allocation's worth of
// fields (the SKU string is its own), prices in cents 0.00..99.99.
func makeItems(n int) []item {
	its := make([]item, n)
	for i := range its {
		its[i] = item{ID: int64(i), SKU: "SKU-" + strconv.Itoa(100000+i), Price: float64(i%10000) / 100}
	}
	return its
}

// sumPrices is the work: the prices added in order, so every mode's sum of
// the same objects is the same float64.
func sumPrices(its []item) float64 {
	var s float64
	for i := range its {
		s += its[i].Price
	}
	return s
}

// encodeItems and decodeItems are the clone: gob over the whole slice.
func encodeItems(its []item) ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(its)
	return b.Bytes(), err
}

func decodeItems(p []byte) ([]item, error) {
	var its []item
	err := gob.NewDecoder(bytes.NewReader(p)).Decode(&its)
	return its, err
}

// objRun is one round of the objects experiment: the three ways to get
// the sum, timed on the Loop.
type objRun struct {
	// sum is the inline sum's wall time on the Loop; blocked the time the
	// Loop spent encoding the objects for the pool; roundTrip from the start
	// of that encoding until the Loop has decoded the reply; move the round
	// trip of the same slice handed over by pointer.
	sum, blocked, roundTrip, move time.Duration
	ok                            bool // the three sums agree, the reply is whole
}

// objectsRound runs one round on objects: inline, pool-copy, pool-move.
// It returns ok false (ignored) when a task fails or the scenario stops.
func (b *breakeven) objectsRound(its []item) (r objRun, done bool) {
	var inSum float64
	b.env.Do(func() {
		t := time.Now()
		inSum = sumPrices(its)
		r.sum = time.Since(t)
	})
	if b.stopped() {
		return r, false
	}
	// pool-copy: the Loop encodes (blocked), the task decodes, sums and
	// encodes back, the Loop decodes the reply.
	var (
		copySum, moveSum float64
		reply            []byte
		back             int
		err              error
	)
	r.roundTrip, err = b.viaPool(func() (func() error, error) {
		t0 := time.Now()
		p, err := encodeItems(its)
		r.blocked = time.Since(t0)
		return func() error {
			got, err := decodeItems(p)
			if err != nil {
				return err
			}
			copySum = sumPrices(got)
			reply, err = encodeItems(got)
			return err
		}, err
	}, func() error {
		got, err := decodeItems(reply)
		back = len(got)
		return err
	})
	if err != nil || b.stopped() {
		return r, false
	}
	// pool-move: the same slice by pointer; nothing is copied.
	r.move, err = b.viaPool(func() (func() error, error) {
		return func() error { moveSum = sumPrices(its); return nil }, nil
	}, func() error { return nil })
	if err != nil || b.stopped() {
		return r, false
	}
	r.ok = copySum == inSum && moveSum == inSum && back == len(its)
	return r, true
}

// viaPool is one trip to the pool and back, timed on the Loop: send runs
// on the Loop and returns the task, which viaPool submits; when the task
// has run, recv runs on the Loop. It returns the wall time from the start
// of send to the end of recv, and the first error of send, the pool, the
// task or recv. The task's results reach recv in order: the pool calls
// done after the task returns, and done posts recv to the Loop.
func (b *breakeven) viaPool(send func() (func() error, error), recv func() error) (time.Duration, error) {
	var (
		took time.Duration
		err  error
		fin  = make(chan struct{})
	)
	b.env.Do(func() {
		t0 := time.Now()
		task, e := send()
		if e != nil {
			err = e
			close(fin)
			return
		}
		var taskErr error
		e = b.env.Submit(func() { taskErr = task() }, func(e error) {
			b.env.Post(func() {
				err = errors.Join(e, taskErr)
				if err == nil {
					err = recv()
				}
				took = time.Since(t0)
				close(fin)
			})
		})
		if e != nil {
			err = e
			close(fin)
		}
	})
	<-fin
	return took, err
}

// objectsDrive runs rounds of the objects experiment on one set of
// objects until the payload kind changes (gen moves on) or Stop.
func (b *breakeven) objectsDrive(gen int64) {
	its := makeItems(b.objectsCount())
	for b.gen.Load() == gen && !b.stopped() {
		if b.Paused() {
			return // drive waits out the pause
		}
		r, ok := b.objectsRound(its)
		if !ok || b.gen.Load() != gen {
			if !b.stopped() && b.gen.Load() == gen {
				b.mu.Lock()
				b.taskErrs++
				b.mu.Unlock()
			}
			continue
		}
		b.mu.Lock()
		b.batches++
		if !r.ok {
			b.mismatches++
		}
		if len(b.objRuns) == breakevenHistory {
			b.objRuns = append(b.objRuns[:0], b.objRuns[1:]...)
		}
		b.objRuns = append(b.objRuns, r)
		b.mu.Unlock()
	}
}

// objectsCount is the number of objects at the scenario's scale.
func (b *breakeven) objectsCount() int { return objectsAt(b.env.Scale) }

// objectsAt is BreakevenObjects times scale, within
// breakevenMinObjects..breakevenMaxObjects.
func objectsAt(scale float64) int {
	return int(min(max(BreakevenObjects*scale, breakevenMinObjects), breakevenMaxObjects))
}

// objectReadouts are the objects experiment's figures beside the seed's:
// medians of the latest rounds. Callers hold mu.
func (b *breakeven) objectReadouts() []Readout {
	var sum, blocked, rt, mv []time.Duration
	for _, r := range b.objRuns {
		sum, blocked, rt, mv = append(sum, r.sum), append(blocked, r.blocked), append(rt, r.roundTrip), append(mv, r.move)
	}
	have := len(b.objRuns) > 0
	med := func(ds []time.Duration) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		return median(ds)
	}
	ms, mb := med(sum), med(blocked)
	rs := []Readout{
		Millis("objects_blocked_ms", "Loop blocked serialising (seed 115)", mb, have),
		Millis("objects_round_trip_ms", "to the pool and back (seed 350)", med(rt), have),
		Millis("objects_inline_sum_ms", "sum on the Loop (seed 8)", ms, have),
		Millis("objects_move_ms", "moved by pointer, round trip", med(mv), have),
	}
	if have && ms > 0 {
		rs = append(rs, Num("objects_blocked_vs_sum", "blocked / inline sum", float64(mb)/float64(ms)))
	} else {
		rs = append(rs, NA("objects_blocked_vs_sum", "blocked / inline sum"))
	}
	rs = append(rs,
		Readout{Key: "objects", Label: "objects", Value: float64(b.objectsCount()), Known: true,
			Text: si(float64(b.objectsCount())) + " {id, sku, price}, encoding/gob"},
		Num("batches", "rounds", float64(b.batches)),
		Num("task_errors", "task errors", float64(b.taskErrs)),
	)
	if have {
		rs = append(rs, Bool("answer_ok", "answer ok", b.mismatches == 0))
	} else {
		rs = append(rs, NA("answer_ok", "answer ok"))
	}
	return rs
}

// payloadKind is the current payload kind's name.
func (b *breakeven) payloadKind() string {
	if b.objects.Load() {
		return PayloadObjects
	}
	return PayloadBytes
}

// Turn applies a knob: o switches bytes and objects (the batch in
// progress is abandoned and the figures start afresh); s and S step the
// payload size (stepPayload).
func (b *breakeven) Turn(key string) {
	turn(breakevenKnobs, key, func(name string, step int) {
		if name == "size" {
			b.stepPayload(step)
			return
		}
		b.objects.Store(!b.objects.Load())
		b.gen.Add(1)
		b.Reset()
	})
}

// objectsStatusLoad is the Load line in objects mode.
func (b *breakeven) objectsStatusLoad() string {
	return strings.Join([]string{si(float64(b.objectsCount())), "objects: sum inline, gob to the pool and back, moved by pointer"}, " ")
}
