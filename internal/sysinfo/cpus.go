package sysinfo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"unicode"
)

// CPUs is what the process may really use: inside a container the
// machine's core count overstates it (seed 000 s3, docs/seeds.md).
type CPUs struct {
	// NumCPU is runtime.NumCPU: the CPUs the process could be scheduled on
	// at start.
	NumCPU int
	// Affinity is the number of CPUs in the affinity mask
	// (sched_getaffinity); 0 when unknown (off Linux).
	Affinity int
	// Quota is the cgroup CPU quota in CPUs (quota / period), the smallest
	// along the process's cgroup path; 0 when there is none or it is unknown.
	Quota float64
	// QuotaKnown is false when the cgroup files could not be read or
	// parsed; Warning then says why in one line.
	QuotaKnown bool
	// QuotaFile is the file the quota came from, for the screen.
	QuotaFile string
	Warning   string
	// Procs, when > 0, is a GOMAXPROCS set by hand (offtop's g/G or
	// --gomaxprocs, or the environment): a smaller machine being emulated,
	// which the suggestion then follows.
	Procs int
}

// Usable is the CPU count a pool should be sized from: min(affinity, quota)
// without rounding, NumCPU when neither is known.
func (c CPUs) Usable() float64 {
	n := float64(c.NumCPU)
	if c.Affinity > 0 {
		n = float64(c.Affinity)
	}
	if c.Quota > 0 {
		n = math.Min(n, c.Quota)
	}
	if c.Procs > 0 {
		n = math.Min(n, float64(c.Procs))
	}
	return n
}

// Suggest is the pool size offtop suggests and the rule that gave it, in one
// line for the screen: floor(usable CPUs), at least 1 (the rounding of
// Node's os.availableParallelism and libuv 1.52), one fewer when keepLoop
// and that leaves at least 1 (cores - 1, so the Loop keeps a core).
func (c CPUs) Suggest(keepLoop bool) (n int, rule string) {
	u := c.Usable()
	n = max(int(math.Floor(u)), 1)
	cpus := c.NumCPU
	what := fmt.Sprintf("%d CPU%s", cpus, plural(cpus))
	if c.Affinity > 0 && c.Affinity < c.NumCPU {
		cpus = c.Affinity
		what = fmt.Sprintf("%d CPU%s in the affinity mask", cpus, plural(cpus))
	}
	if c.Quota > 0 && c.Quota < float64(cpus) {
		what = strconv.FormatFloat(c.Quota, 'g', 3, 64) + " CPU quota"
	}
	bound := float64(cpus)
	if c.Quota > 0 {
		bound = math.Min(bound, c.Quota)
	}
	if c.Procs > 0 && float64(c.Procs) < bound {
		what = fmt.Sprintf("GOMAXPROCS %d set by hand", c.Procs)
	}
	rule = fmt.Sprintf("floor(%s)", what)
	if u < 1 {
		rule = fmt.Sprintf("at least 1 (%s)", what)
	}
	if keepLoop && n > 1 {
		n--
		rule += " - 1 for the Loop"
	}
	return n, fmt.Sprintf("suggest %d = %s", n, rule)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// RuntimeDefaultGOMAXPROCS is the GOMAXPROCS Go (>= 1.25) picks for these
// CPUs: min(affinity, ceil(quota)), and at least 2 when a quota applies
// (the runtime package's GOMAXPROCS doc). It rounds up where Suggest
// rounds down: 0.5 CPU gives GOMAXPROCS 2 and a suggestion of 1.
func (c CPUs) RuntimeDefaultGOMAXPROCS() int {
	n := c.NumCPU
	if c.Affinity > 0 {
		n = c.Affinity
	}
	if c.Quota > 0 {
		q := max(int(math.Ceil(c.Quota)), 2)
		n = min(n, q)
	}
	return max(n, 1)
}

// ReadCPUs reads the CPU limits of this process under root ("/" on a real
// system; a testdata tree in tests): /proc/self/cgroup and
// /proc/self/mountinfo locate its cgroup, whose cpu.max (v2) or
// cpu.cfs_quota_us and cpu.cfs_period_us (v1) give the quota. A missing or
// malformed file gives QuotaKnown false and a one-line Warning, never an
// error or a made-up number.
func ReadCPUs(root string) CPUs {
	c := CPUs{NumCPU: runtime.NumCPU(), Affinity: affinity()}
	q, file, err := readQuota(root)
	switch {
	case err != nil:
		c.Warning = "cpu limit unknown: " + oneLine(err.Error())
	default:
		c.Quota, c.QuotaFile, c.QuotaKnown = q, file, true
	}
	return c
}

// oneLine is s with its control characters escaped as Go writes them in a
// string literal (\n, \x00): a path read from mountinfo may hold any byte
// (\012 unescapes to a newline), and a warning is one line.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// errNoCgroup is returned when the process is in no cpu cgroup hierarchy.
var errNoCgroup = errors.New("no cpu cgroup found")

// readQuota finds the cgroup's quota in CPUs (0: no limit) and the file it
// read last.
func readQuota(root string) (float64, string, error) {
	cg, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return 0, "", fmt.Errorf("read /proc/self/cgroup: %w", err)
	}
	mi, err := os.ReadFile(filepath.Join(root, "proc/self/mountinfo"))
	if err != nil {
		return 0, "", fmt.Errorf("read /proc/self/mountinfo: %w", err)
	}
	v1Path, v2Path, err := parseProcCgroup(cg)
	if err != nil {
		return 0, "", err
	}
	mounts, err := parseMountinfo(mi)
	if err != nil {
		return 0, "", err
	}
	// Prefer v1's cpu controller when the process is in one (a hybrid
	// system keeps the cpu controller on v1), else v2.
	for _, m := range mounts {
		if m.v1cpu && v1Path != "" {
			return walkQuota(root, m, v1Path, readV1)
		}
	}
	for _, m := range mounts {
		if m.v2 && v2Path != "" {
			return walkQuota(root, m, v2Path, readV2)
		}
	}
	return 0, "", errNoCgroup
}

// parseProcCgroup returns the process's cgroup path in the v1 cpu
// hierarchy and in the v2 unified one ("" when absent). Lines are
// "ID:CONTROLLERS:PATH" (cgroups(7)).
func parseProcCgroup(b []byte) (v1, v2 string, err error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		n++
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[2], "/") {
			return "", "", fmt.Errorf("/proc/self/cgroup: malformed line %q", line)
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = parts[2]
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			if ctl == "cpu" {
				v1 = parts[2]
			}
		}
	}
	if n == 0 {
		return "", "", errors.New("/proc/self/cgroup is empty")
	}
	return v1, v2, nil
}

// mount is a cgroup mount from /proc/self/mountinfo.
type mount struct {
	root, point string // the mount's root within the hierarchy, and where it is mounted
	v1cpu, v2   bool
}

// parseMountinfo returns the cgroup mounts: v2 (fstype cgroup2) and v1
// with the cpu controller (fstype cgroup, super options containing cpu).
// Lines are "ID PARENT MAJ:MIN ROOT POINT OPTS [OPTIONAL...] - FSTYPE
// SOURCE SUPEROPTS" (proc(5)).
func parseMountinfo(b []byte) ([]mount, error) {
	var out []mount
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		sep := -1
		for i, x := range f {
			if x == "-" {
				sep = i
				break
			}
		}
		if sep < 6 || len(f) < sep+4 { // fstype, source and super options after "-"
			return nil, fmt.Errorf("/proc/self/mountinfo: malformed line %q", sc.Text())
		}
		// The point is cleaned as an absolute path, so that it names a
		// directory under root however odd the line (root is "/" on a
		// real system, a testdata tree in tests).
		m := mount{root: unescape(f[3]), point: path.Clean("/" + unescape(f[4]))}
		switch f[sep+1] {
		case "cgroup2":
			m.v2 = true
		case "cgroup":
			for _, o := range strings.Split(f[sep+3], ",") {
				if o == "cpu" {
					m.v1cpu = true
				}
			}
		}
		if m.v1cpu || m.v2 {
			out = append(out, m)
		}
	}
	return out, nil
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// walkQuota reads the quota of the cgroup at cgPath under mount m and of
// each parent up to the mount's root, and returns the smallest (a parent's
// limit binds its children too). 0 means none at any level.
func walkQuota(root string, m mount, cgPath string, read func(dir string) (float64, bool, error)) (float64, string, error) {
	rel := cgPath
	if m.root != "/" {
		if !strings.HasPrefix(cgPath, m.root) {
			return 0, "", fmt.Errorf("cgroup path %q is outside the mount root %q", cgPath, m.root)
		}
		rel = strings.TrimPrefix(cgPath, m.root)
	}
	rel = path.Clean("/" + rel)
	best, file := 0.0, ""
	for {
		dir := filepath.Join(root, m.point, rel)
		q, limited, err := read(dir)
		if err != nil {
			return 0, "", err
		}
		if limited && (best == 0 || q < best) {
			best, file = q, dir
		}
		if rel == "/" {
			break
		}
		rel = path.Dir(rel)
	}
	return best, file, nil
}

// readV2 reads cgroup v2 cpu.max: "max PERIOD" (no limit) or "QUOTA
// PERIOD" in microseconds. A missing file at a level means no limit there
// (the root cgroup has none).
func readV2(dir string) (float64, bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cpu.max"))
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, false, fmt.Errorf("%s/cpu.max: want \"QUOTA PERIOD\", got %q", dir, strings.TrimSpace(string(b)))
	}
	period, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || period <= 0 {
		return 0, false, fmt.Errorf("%s/cpu.max: bad period %q", dir, f[1])
	}
	if f[0] == "max" {
		return 0, false, nil
	}
	quota, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || quota <= 0 {
		return 0, false, fmt.Errorf("%s/cpu.max: bad quota %q", dir, f[0])
	}
	return float64(quota) / float64(period), true, nil
}

// readV1 reads cgroup v1 cpu.cfs_quota_us (-1: no limit) and
// cpu.cfs_period_us.
func readV1(dir string) (float64, bool, error) {
	qb, err := os.ReadFile(filepath.Join(dir, "cpu.cfs_quota_us"))
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	quota, err := strconv.ParseInt(strings.TrimSpace(string(qb)), 10, 64)
	if err != nil || quota == 0 || quota < -1 {
		return 0, false, fmt.Errorf("%s/cpu.cfs_quota_us: bad quota %q", dir, strings.TrimSpace(string(qb)))
	}
	if quota == -1 {
		return 0, false, nil
	}
	pb, err := os.ReadFile(filepath.Join(dir, "cpu.cfs_period_us"))
	if err != nil {
		return 0, false, fmt.Errorf("%s: quota without a period: %w", dir, err)
	}
	period, err := strconv.ParseInt(strings.TrimSpace(string(pb)), 10, 64)
	if err != nil || period <= 0 {
		return 0, false, fmt.Errorf("%s/cpu.cfs_period_us: bad period %q", dir, strings.TrimSpace(string(pb)))
	}
	return float64(quota) / float64(period), true, nil
}
