//go:build shape

package sysinfo_test

import (
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/runq"
	"github.com/offtop/offtop/internal/shape"
	"github.com/offtop/offtop/internal/sysinfo"
)

// othersOver is the others' CPUs over d, read by p.
func othersOver(p *sysinfo.ProcStat, d time.Duration) float64 {
	a := p.ReadMachine()
	time.Sleep(d)
	v, _ := sysinfo.OthersCPUs(a, p.ReadMachine())
	return v
}

// TestShapeOthersAgreesWithRunq: the live reading and sweep's spinning
// check agree: on a quiet machine the reading is under BusyShare of the
// CPUs and runq quiet; with two busy loops of our own beside it the
// reading is about 2 CPUs (within 0.5) and busy, and runq busy too. Each
// figure is logged beside the other.
func TestShapeOthersAgreesWithRunq(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.NumCPU() != 2 {
		t.Skip("needs Linux on 2 CPUs")
	}
	shape.Judge(t)
	p := sysinfo.NewProcStat("/")
	defer p.Close()
	quiet := othersOver(p, time.Second)
	rq, _ := runq.Measure(300 * time.Millisecond)
	t.Logf("quiet: others %.2f of 2 CPUs (busy %v); runq %s (busy %v)", quiet, sysinfo.Busy(quiet, 2), rq, rq.Busy())
	if sysinfo.Busy(quiet, 2) != rq.Busy() {
		t.Errorf("quiet: the reading says busy %v, runq %v", sysinfo.Busy(quiet, 2), rq.Busy())
	}
	shape.Spin(t, 2)
	time.Sleep(200 * time.Millisecond)
	busy := othersOver(p, time.Second)
	rb, _ := runq.Measure(300 * time.Millisecond)
	t.Logf("two loops: others %.2f of 2 CPUs (busy %v); runq %s (busy %v)", busy, sysinfo.Busy(busy, 2), rb, rb.Busy())
	if math.Abs(busy-2) > 0.5 || !sysinfo.Busy(busy, 2) || !rb.Busy() {
		t.Errorf("two loops: others %.2f (busy %v), runq busy %v: want about 2, both busy", busy, sysinfo.Busy(busy, 2), rb.Busy())
	}
}
