package workload

import "sync"

// Info is what a Catalog says of a workload without making one.
type Info struct {
	// Headline is its one figure to watch (ProbeHeadline when it names
	// none).
	Headline HeadlineSpec
	// KeepsLoop says its Loop must stay responsive: the suggested size
	// leaves the Loop a core.
	KeepsLoop bool
	// Workers is its own default pool size; 0 means the CPU rule's.
	Workers int
	// Sizing is how its size is picked (the size search's rule).
	Sizing SizingSpec
}

// Catalog is a set of named workloads a session can run (the scenarios'
// registry: scenarios.Catalog).
type Catalog interface {
	// Default is the workload run when none is named.
	Default() string
	// Names lists the workloads in the order tab cycles them, Default
	// first.
	Names() []string
	// Info describes the workload named name; ok is false for a name it
	// lacks (Info then holds ProbeHeadline).
	Info(name string) (info Info, ok bool)
	// New makes a fresh workload named name with c's parameters.
	New(name string, c Config) (Workload, error)
}

// ProbeHeadline is the Loop probe as a headline: a workload's that names
// no other, and an attached program's.
var ProbeHeadline = HeadlineSpec{Name: "probe", Unit: "ms", LowerBetter: true, FromProbe: true}

var (
	registeredMu sync.Mutex
	registered   Catalog
)

// Register makes c the catalog a session uses when its Config names none
// (scenarios registers its registry at init): a program that links no
// workload, such as one with offtop's agent, has none.
func Register(c Catalog) {
	registeredMu.Lock()
	defer registeredMu.Unlock()
	registered = c
}

// Registered is the catalog Register set; nil when none.
func Registered() Catalog {
	registeredMu.Lock()
	defer registeredMu.Unlock()
	return registered
}

// HeadlineNamed is the headline a size row or a JSON line names by its
// name alone: ProbeHeadline for the probe's name (or none), else a
// latency in ms, lower better, as every headline is (the JSON carries its
// p99 as headline_p99_ms).
func HeadlineNamed(name string) HeadlineSpec {
	if name == "" || name == ProbeHeadline.Name {
		return ProbeHeadline
	}
	return HeadlineSpec{Name: name, Unit: "ms", LowerBetter: true}
}
