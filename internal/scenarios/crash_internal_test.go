package scenarios

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

	"github.com/offtop/offtop/pool"
	"go.uber.org/goleak"
)

func TestPickKindShares(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	var n [3]int
	const total = 100_000
	for range total {
		n[pickKind(100*r.Float64(), 5, 1)]++
	}
	for k, want := range map[crashKind]float64{crashWork: 0.94, crashPanic: 0.05, crashHang: 0.01} {
		if got := float64(n[k]) / total; got < want*0.9 || got > want*1.1 {
			t.Errorf("kind %d: share %.4f, want ~%.2f", k, got, want)
		}
	}
	if pickKind(0, 0, 0) != crashWork || pickKind(99.9, 100, 0) != crashPanic || pickKind(0.5, 0, 1) != crashHang {
		t.Error("edges")
	}
}

func TestDueTasks(t *testing.T) {
	for _, c := range []struct {
		el   time.Duration
		rate int
		want int64
	}{{0, 100, 0}, {-time.Second, 100, 0}, {9 * time.Millisecond, 100, 0}, {10 * time.Millisecond, 100, 1},
		{time.Second, 100, 100}, {2500 * time.Millisecond, 400, 1000}, {time.Second, 0, 0}} {
		if got := dueTasks(c.el, c.rate); got != c.want {
			t.Errorf("dueTasks(%v, %d) = %d, want %d", c.el, c.rate, got, c.want)
		}
	}
}

func TestStepShare(t *testing.T) {
	for _, c := range []struct {
		pct   float64
		delta int
		want  float64
	}{{5, 1, 10}, {5, -1, 1}, {5, 2, 25}, {25, 1, 25}, {0, -1, 0}, {5, -5, 0}, {3, 1, 5}, {3, -1, 1}, {5, 0, 5}} {
		if got := stepShare(c.pct, c.delta); got != c.want {
			t.Errorf("stepShare(%v, %d) = %v, want %v", c.pct, c.delta, got, c.want)
		}
	}
}

func TestTallyMatches(t *testing.T) {
	base := pool.Counts{Submitted: 10, Completed: 7, Failed: 2, Running: 1}
	a := crashTally{submitted: 6, completed: 3, panicked: 1, timedOut: 1}
	now := pool.Counts{Submitted: 16, Completed: 10, Failed: 3, TimedOut: 1, Running: 1, Queued: 1}
	if !tallyMatches(a, base, now) {
		t.Error("matching counts rejected")
	}
	for name, bad := range map[string]pool.Counts{
		"lost":    {Submitted: 16, Completed: 10, Failed: 3, TimedOut: 1, Running: 1},
		"twice":   {Submitted: 16, Completed: 11, Failed: 3, TimedOut: 1, Running: 1, Queued: 1},
		"timeout": {Submitted: 16, Completed: 10, Failed: 4, Running: 1, Queued: 1},
	} {
		if tallyMatches(a, base, bad) {
			t.Errorf("%s: mismatch accepted", name)
		}
	}
}

// poolEnv is an Env on a real pool, for scenarios tested without a
// session.
func poolEnv(t *testing.T, size int) (Env, *pool.Pool) {
	t.Helper()
	p, err := pool.New(pool.Options{Size: size})
	if err != nil {
		t.Fatal(err)
	}
	return Env{
		Post:          func(fn func()) { go fn() },
		Do:            func(fn func()) { fn() },
		Offload:       p.Do,
		Submit:        p.Submit,
		SubmitTimeout: p.SubmitTimeout,
		Counts:        p.Counts,
		Workers:       func() int { return size },
		Scale:         0.05,
		Window:        time.Second,
	}, p
}

// Stop releases every hung task and returns only when each has returned:
// with hangs that never reach their deadline, Stop still ends them all, the
// counts still match, and no goroutine is left once the pool closes.
func TestCrashStopReleasesHangs(t *testing.T) {
	defer goleak.VerifyNone(t)
	env, p := poolEnv(t, 2)
	c := newCrash(Config{CrashRate: 200, CrashHangPercent: 20, CrashTimeout: time.Hour})
	if err := c.Start(env); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "two hangs sent", 0, func() bool { return c.hangs.Load() >= 2 })
	if ok, _ := c.consistent(); !ok {
		t.Error("counts do not match while hung")
	}
	c.Stop()
	c.Stop() // safe twice
	if ok, now := c.consistent(); !ok || now.Running+now.Queued != 0 || now.TimedOut != 0 {
		t.Errorf("after Stop: consistent %v, %+v", ok, now)
	}
	if c.wrong.Load() != 0 {
		t.Errorf("%d wrong outcomes", c.wrong.Load())
	}
	p.Close()
}

// A task the pool reports twice, or loses, makes answer_ok false: the
// check is not a tautology. Here done is called a second time by a
// misbehaving Submit.
func TestCrashAnswerCatchesDoubleDone(t *testing.T) {
	defer goleak.VerifyNone(t)
	env, p := poolEnv(t, 1)
	var once sync.Once
	env.SubmitTimeout = func(fn func(), d time.Duration, done func(error)) error {
		return p.SubmitTimeout(fn, d, func(err error) {
			done(err)
			once.Do(func() { done(errors.New("again")) })
		})
	}
	c := newCrash(Config{CrashRate: 200})
	if err := c.Start(env); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the double done caught", 0, func() bool { return c.wrong.Load() > 0 })
	if r := readoutOf(c.Status(), "answer_ok"); r.Known && r.Value == 1 {
		t.Errorf("answer_ok %+v after a double done", r)
	}
	c.Stop()
	p.Close()
}

func readoutOf(s Status, key string) Readout {
	for _, r := range s.Readouts {
		if r.Key == key {
			return r
		}
	}
	return Readout{}
}
