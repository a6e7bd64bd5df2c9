package sysinfo

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree writes a fake root: files maps a path under root to its content.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const (
	mountV2 = "30 22 0:27 / /sys/fs/cgroup rw,relatime - cgroup2 cgroup2 rw\n"
	mountV1 = "30 22 0:27 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n" +
		"31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n" +
		"34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
)

// v2 is a process in /app under a v2 hierarchy whose cpu.max is cpuMax.
func v2(t *testing.T, cpuMax string) string {
	return tree(t, map[string]string{
		"proc/self/cgroup":          "0::/app\n",
		"proc/self/mountinfo":       mountV2,
		"sys/fs/cgroup/app/cpu.max": cpuMax,
	})
}

func TestQuotaV2(t *testing.T) {
	for _, c := range []struct {
		cpuMax  string
		quota   float64
		cpus    int
		suggest int
	}{
		{"25000 100000\n", 0.25, 2, 1},
		{"150000 100000\n", 1.5, 2, 1},
		{"850000 100000\n", 8.5, 10, 8},
		{"max 100000\n", 0, 10, 10},
	} {
		q, _, err := readQuota(v2(t, c.cpuMax))
		if err != nil || q != c.quota {
			t.Errorf("%q: quota %v, %v; want %v", c.cpuMax, q, err, c.quota)
			continue
		}
		got, rule := CPUs{NumCPU: c.cpus, Affinity: c.cpus, Quota: q, QuotaKnown: true}.Suggest(false)
		if got != c.suggest || !strings.HasPrefix(rule, "suggest ") {
			t.Errorf("%q on %d CPUs: suggest %d (%s), want %d", c.cpuMax, c.cpus, got, rule, c.suggest)
		}
	}
}

func TestQuotaV1(t *testing.T) {
	base := map[string]string{
		"proc/self/cgroup":    "4:memory:/x\n3:cpu,cpuacct:/docker/abc\n0::/\n",
		"proc/self/mountinfo": mountV1,
	}
	dir := "sys/fs/cgroup/cpu,cpuacct/docker/abc/"
	for _, c := range []struct {
		quota, period string
		want          float64
	}{
		{"-1\n", "100000\n", 0},
		{"50000\n", "100000\n", 0.5},
	} {
		files := map[string]string{dir + "cpu.cfs_quota_us": c.quota, dir + "cpu.cfs_period_us": c.period}
		for k, v := range base {
			files[k] = v
		}
		q, file, err := readQuota(tree(t, files))
		if err != nil || q != c.want {
			t.Errorf("v1 %q: %v, %v; want %v", c.quota, q, err, c.want)
		}
		if c.want > 0 && !strings.HasSuffix(file, "docker/abc") {
			t.Errorf("v1 quota read from %q, want the nested cgroup", file)
		}
	}
}

// TestNestedPathFollowed: the process's cgroup is nested; the limit sits on
// a parent, and a child without one does not hide it.
func TestNestedPathFollowed(t *testing.T) {
	root := tree(t, map[string]string{
		"proc/self/cgroup":                         "0::/kubepods/pod1/ctr\n",
		"proc/self/mountinfo":                      mountV2,
		"sys/fs/cgroup/kubepods/pod1/ctr/cpu.max":  "max 100000\n",
		"sys/fs/cgroup/kubepods/pod1/cpu.max":      "150000 100000\n",
		"sys/fs/cgroup/kubepods/cpu.max":           "400000 100000\n",
		"sys/fs/cgroup/kubepods/pod1/ctr/cpu.stat": "",
	})
	q, file, err := readQuota(root)
	if err != nil || q != 1.5 || !strings.HasSuffix(file, "kubepods/pod1") {
		t.Errorf("nested: %v from %q, %v; want 1.5 from kubepods/pod1", q, file, err)
	}
}

// TestMountRootInsideContainer: a container sees its own cgroup as the
// mount root; /proc/self/cgroup's path is relative to the host's.
func TestMountRootInsideContainer(t *testing.T) {
	root := tree(t, map[string]string{
		"proc/self/cgroup":          "0::/docker/abc\n",
		"proc/self/mountinfo":       "30 22 0:27 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
		"sys/fs/cgroup/cpu.max":     "50000 100000\n",
		"sys/fs/cgroup/app/cpu.max": "junk",
	})
	if q, _, err := readQuota(root); err != nil || q != 0.5 {
		t.Errorf("container root: %v, %v; want 0.5", q, err)
	}
}

func TestBadFilesGiveUnknownWithWarning(t *testing.T) {
	for name, root := range map[string]string{
		"empty cpu.max":    v2(t, ""),
		"garbage cpu.max":  v2(t, "lots of cpu\n"),
		"negative period":  v2(t, "50000 -100000\n"),
		"zero quota":       v2(t, "0 100000\n"),
		"empty cgroup":     tree(t, map[string]string{"proc/self/cgroup": "", "proc/self/mountinfo": mountV2}),
		"garbage cgroup":   tree(t, map[string]string{"proc/self/cgroup": "nonsense\n", "proc/self/mountinfo": mountV2}),
		"no proc":          t.TempDir(),
		"bad mountinfo":    tree(t, map[string]string{"proc/self/cgroup": "0::/\n", "proc/self/mountinfo": "1 2 3\n"}),
		"v1 quota garbage": tree(t, map[string]string{"proc/self/cgroup": "3:cpu:/\n", "proc/self/mountinfo": mountV1, "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "x\n"}),
	} {
		c := ReadCPUs(root)
		if c.QuotaKnown || c.Quota != 0 || c.Warning == "" || strings.Contains(c.Warning, "\n") {
			t.Errorf("%s: %+v, want unknown with a one-line warning", name, c)
		}
	}
}

func TestSuggestRules(t *testing.T) {
	for _, c := range []struct {
		cpus     CPUs
		keepLoop bool
		want     int
		rule     string
	}{
		{CPUs{NumCPU: 2, Affinity: 2}, false, 2, "suggest 2 = floor(2 CPUs)"},
		{CPUs{NumCPU: 2, Affinity: 2}, true, 1, "suggest 1 = floor(2 CPUs) - 1 for the Loop"},
		{CPUs{NumCPU: 2, Affinity: 1}, true, 1, "suggest 1 = floor(1 CPU in the affinity mask)"},
		{CPUs{NumCPU: 10, Affinity: 10, Quota: 16}, false, 10, "suggest 10 = floor(10 CPUs)"},
		{CPUs{NumCPU: 2, Affinity: 2, Procs: 1}, false, 1, "suggest 1 = floor(GOMAXPROCS 1 set by hand)"},
		{CPUs{NumCPU: 8, Affinity: 8, Quota: 1.5, Procs: 4}, false, 1, "suggest 1 = floor(1.5 CPU quota)"},
		{CPUs{NumCPU: 2, Affinity: 2, Quota: 1.5}, false, 1, "suggest 1 = floor(1.5 CPU quota)"},
		{CPUs{NumCPU: 2, Affinity: 2, Quota: 0.5}, false, 1, "suggest 1 = at least 1 (0.5 CPU quota)"},
	} {
		n, rule := c.cpus.Suggest(c.keepLoop)
		if n != c.want || rule != c.rule {
			t.Errorf("%+v keepLoop %v: %d %q, want %d %q", c.cpus, c.keepLoop, n, rule, c.want, c.rule)
		}
	}
}

// TestRuntimeDefaultRoundsUp: Go rounds the quota up (at least 2 with a
// quota), Node and offtop's suggestion round down (docs/measurements.md).
func TestRuntimeDefaultRoundsUp(t *testing.T) {
	for q, want := range map[float64]int{0.5: 2, 1.5: 2, 8.5: 9, 0: 10} {
		if got := (CPUs{NumCPU: 10, Affinity: 10, Quota: q}).RuntimeDefaultGOMAXPROCS(); got != want {
			t.Errorf("quota %v: %d, want %d", q, got, want)
		}
	}
}

func TestReadCPUsHere(t *testing.T) {
	c := ReadCPUs("/")
	if c.NumCPU < 1 || c.Usable() <= 0 {
		t.Errorf("%+v", c)
	}
	t.Logf("%+v", c)
}

// FuzzReadCPUs: whatever /proc/self/cgroup, /proc/self/mountinfo and
// cpu.max hold, ReadCPUs neither panics nor makes up a number: a known
// quota is finite and >= 0 with no warning; an unknown one is 0 with a
// one-line warning; the suggested pool size is at least 1.
// go test -fuzz FuzzReadCPUs ./internal/sysinfo
func FuzzReadCPUs(f *testing.F) {
	f.Add("0::/app\n", mountV2, "25000 100000\n")
	f.Add("0::/app\n", mountV2, "max 100000\n")
	f.Add("0::/app\n", mountV2, "lots of cpu\n")
	f.Add("3:cpu:/\n", mountV1, "")
	f.Add("0::/a\\012b\n", "30 22 0:27 / /sys/fs/cgroup\\012x rw - cgroup2 cgroup2 rw\n", "1 1\n")
	f.Add("0::/../..\n", "30 22 0:27 /x /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", "9223372036854775807 1\n")
	f.Fuzz(func(t *testing.T, cgroup, mountinfo, cpuMax string) {
		root := tree(t, map[string]string{
			"proc/self/cgroup":          cgroup,
			"proc/self/mountinfo":       mountinfo,
			"sys/fs/cgroup/app/cpu.max": cpuMax,
		})
		c := ReadCPUs(root)
		switch {
		case c.QuotaKnown && (c.Quota < 0 || math.IsInf(c.Quota, 0) || math.IsNaN(c.Quota) || c.Warning != ""):
			t.Fatalf("known quota %v with warning %q", c.Quota, c.Warning)
		case !c.QuotaKnown && (c.Quota != 0 || c.Warning == "" || strings.ContainsAny(c.Warning, "\r\n")):
			t.Fatalf("unknown quota %v: warning %q, want one line", c.Quota, c.Warning)
		}
		for _, keep := range []bool{false, true} {
			if n, rule := c.Suggest(keep); n < 1 || rule == "" || strings.ContainsAny(rule, "\r\n") {
				t.Fatalf("Suggest(%v) = %d, %q for %+v", keep, n, rule, c)
			}
		}
	})
}
